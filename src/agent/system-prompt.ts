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
