/** The base system prompt; extensions (rules, skills, episodes) append their parts. */
export function baseSystemPrompt(options: { cwd: string; custom?: string; date?: Date }): string {
  const date = (options.date ?? new Date()).toISOString().slice(0, 10);
  const lines = [
    'You are plaited-agent, a coding agent working in a user\'s project through tools.',
    `The project folder (cwd) is ${options.cwd}. Today is ${date}.`,
    'Read before you edit. Prefer small, exact edits (edit_file) over rewriting files.',
    'Paths are relative to the project folder. Keep answers short; show what you changed.',
  ];
  if (options.custom) lines.push('', options.custom);
  return lines.join('\n');
}

/** Added to the system prompt while the session is in plan mode. */
export const PLAN_MODE_PROMPT =
  'The session is in plan mode: you may only use read-only tools. Explore, then present a concrete plan ' +
  '(with the plan tool when you have it, otherwise as text). When the plan is ready, call exit_plan_mode with it ' +
  'so the user can switch modes and let you execute.';
