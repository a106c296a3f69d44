import type { Log } from './stderr-log.js';
import { terminalStreams } from './terminal-safe-stream.js';

/** Session titles, transcripts and servers' errors are others' text: on a terminal they show, never act. */
const streams = terminalStreams;

/**
 * The terminal's own subcommands (`sessions`, `init`, `doctor`, `mcp`): each runs and exits.
 * Resolves to the exit code, or `undefined` when `command` is none of them.
 */
export async function runOneShotCommand(command: { name: string; args: string[] } | undefined, log: Log): Promise<number | undefined> {
  switch (command?.name) {
    case 'sessions':
      return (await import('./sessions-command.js')).runSessionsCommand(command.args, process.cwd(), streams(), log);
    case 'init':
      return (await import('./init-command.js')).runInitCommand(command.args, process.cwd(), streams());
    case 'doctor':
      return (await import('./doctor-command.js')).runDoctorCommand(command.args, process.cwd(), streams(), log);
    case 'mcp':
      return (await import('./mcp-command.js')).runMcpCommand(command.args, process.cwd(), streams(), log);
    default:
      return undefined;
  }
}
