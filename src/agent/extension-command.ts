import type { AgentErrorInfo, ContentPart } from '../contracts/agent-output.js';
import type { AgentExtension } from './agent-extension.js';
import { errorMessage } from '../errors/error-message.js';

/**
 * What a slash command answers: a reply shown to the user (no model turn), the input of a turn
 * that replaces the user's prompt (an MCP prompt's messages), or an error in the protocol's shape.
 */
export type CommandOutcome = string | { turn: ContentPart[] } | { error: AgentErrorInfo };

/** A slash command an extension answers itself (the MCP extension's `/mcp`, an MCP server's prompt). */
export interface ExtensionCommand {
  name: string;
  description: string;
  hint?: string;
  /** `argument` is what follows `/name` (trimmed, may be empty). */
  run(argument: string, session: { sessionId: string; cwd: string }): Promise<CommandOutcome> | CommandOutcome;
}

/** A command's name: letters, digits, `_`, `-`, `.` and `:` (an MCP prompt's `server:prompt`). */
const SLASH = /^\/([A-Za-z0-9_.:-]+)(?:\s+(.*))?$/s;

/** The `/name` a prompt starts with and what follows it, or `undefined` when it is no command. */
function parseSlashCommand(prompt: string): { name: string; argument: string } | undefined {
  const match = SLASH.exec(prompt.trim());
  return match ? { name: match[1]!, argument: match[2]?.trim() ?? '' } : undefined;
}

/**
 * Answers a prompt that is one of the extensions' own slash commands: a static one (`/mcp`), or
 * one an extension resolves for the session (`command`); `undefined` when it is neither (then it
 * is a turn as typed: a skill's `/name` goes to the model). A command that throws answers with
 * its error, so the user sees why.
 */
export async function answerExtensionCommand(
  extensions: readonly AgentExtension[],
  prompt: string,
  session: { sessionId: string; cwd: string },
): Promise<CommandOutcome | undefined> {
  const parsed = parseSlashCommand(prompt);
  if (!parsed) return undefined;
  let command = extensions.flatMap((extension) => extension.commands ?? []).find((candidate) => candidate.name === parsed.name);
  try {
    for (const extension of extensions) {
      if (command) break;
      command = await extension.command?.(parsed.name, session);
    }
    if (!command) return undefined;
    return await command.run(parsed.argument, session);
  } catch (error) {
    return `/${parsed.name} failed: ${errorMessage(error)}`;
  }
}
