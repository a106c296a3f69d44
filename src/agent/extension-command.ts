import type { AgentExtension } from './agent-extension.js';

/** A slash command an extension answers itself, without a model turn (the MCP extension's `/mcp`). */
export interface ExtensionCommand {
  name: string;
  description: string;
  hint?: string;
  /** The reply shown to the user; `argument` is what follows `/name` (trimmed, may be empty). */
  run(argument: string, session: { sessionId: string; cwd: string }): Promise<string> | string;
}

const SLASH = /^\/([A-Za-z0-9_-]+)(?:\s+(.*))?$/s;

/**
 * Answers a prompt that is one of the extensions' own slash commands; `undefined` when it is
 * not (then it is a turn: a skill's `/name` goes to the model). A command that throws answers
 * with its error, so the user sees why.
 */
export async function answerExtensionCommand(
  extensions: readonly AgentExtension[],
  prompt: string,
  session: { sessionId: string; cwd: string },
): Promise<string | undefined> {
  const match = SLASH.exec(prompt.trim());
  if (!match) return undefined;
  const command = extensions.flatMap((extension) => extension.commands ?? []).find((candidate) => candidate.name === match[1]);
  if (!command) return undefined;
  try {
    return await command.run(match[2]?.trim() ?? '', session);
  } catch (error) {
    return `/${command.name} failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}
