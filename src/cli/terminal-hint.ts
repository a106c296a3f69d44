import type { CliArgs } from './parse-cli-args.js';

export const TERMINAL_HINT =
  'plaited-agent: this is an Agent Client Protocol server for editors (it reads JSON-RPC on stdin). From a terminal, run `plaited-agent chat` to talk with it, or `plaited-agent -p "task"` for one answer; --help lists the rest.';

/**
 * The one line a person who started the bare server in a terminal needs: shown when stdin is a
 * TTY and nothing asked for a protocol on stdio explicitly (no --adapter, no --transport), nor
 * for the terminal's own chat.
 */
export function terminalHint(args: CliArgs, stdinIsTTY: boolean | undefined): string | undefined {
  if (!stdinIsTTY || args.print || args.command?.name === 'chat' || args.adapters.length > 0 || args.transport !== undefined) return undefined;
  return TERMINAL_HINT;
}
