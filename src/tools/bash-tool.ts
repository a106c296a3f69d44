import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ToolCallContent } from '../contracts/agent-output.js';
import { defineTool } from './define-tool.js';
import type { AnyTool, ToolResult } from '../contracts/tool.js';
import { errorResult } from './tool-result.js';
import { errorMessage } from '../errors/error-message.js';
import { startBackgroundCommand } from './start-background-command.js';

/** Same defaults as config `agent.bash`. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_DEFAULT_MAX_OUTPUT_BYTES = 30_000;
/** A model may ask for a longer timeout per call, up to this (or the configured one, if higher). */
const BASH_MAX_TIMEOUT_MS = 600_000;
const TITLE_MAX_CHARS = 80;

export interface BashToolOptions {
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** Secret-looking variables commands may inherit (config `tools.env.passthrough`). */
  envPassthrough?: readonly string[];
}

const parameters = z.strictObject({
  command: z.string().min(1).describe('The bash command to run, in the working directory.'),
  timeout_ms: z.number().int().positive().optional().describe('Kill the command after this many milliseconds (background commands have no default timeout).'),
  description: z.string().optional().describe('What the command does, in a few words, for the user.'),
  background: z
    .boolean()
    .optional()
    .describe('Keep it running after this call returns (servers, watchers, long builds); read it with bash_output, stop it with bash_kill.'),
});

/**
 * Runs a shell command through the session's Runtime (local bash, an ACP client
 * terminal, or a sandbox). A non-zero exit, a timeout or an abort is an error
 * result, so the model sees it failed; the output tail is kept.
 */
export function createBashTool(options: BashToolOptions = {}): AnyTool {
  const timeoutMs = options.timeoutMs ?? BASH_DEFAULT_TIMEOUT_MS;
  const maxOutputBytes = options.maxOutputBytes ?? BASH_DEFAULT_MAX_OUTPUT_BYTES;
  const maxTimeoutMs = Math.max(timeoutMs, BASH_MAX_TIMEOUT_MS);
  return defineTool({
    name: 'bash',
    description:
      'Run a bash command in the working directory and return its exit code and output (stdout and stderr ' +
      `interleaved; the last ${maxOutputBytes} bytes are kept). Default timeout ${timeoutMs} ms. ` +
      'Use it for builds, tests, git and other programs; use read_file, edit_file, glob and grep for files. ' +
      'With background: true the command keeps running after the call returns; the result gives its id.',
    parameters,
    risk: 'external',
    kind: 'execute',
    title: (args) => `Run: ${shorten(args.command)}`,
    async execute(args, context): Promise<ToolResult> {
      // A background command has no default timeout (servers, watchers); one the model asks for applies.
      if (args.background) return startBackgroundCommand(args.command, context, { passEnv: options.envPassthrough, timeoutMs: args.timeout_ms });
      const limitMs = Math.min(args.timeout_ms ?? timeoutMs, maxTimeoutMs);
      // The command's own terminal (live output, a stop button for protocols that show one).
      const { sessionId } = context;
      const terminalId = `term-${randomBytes(4).toString('hex')}`;
      const stop = new AbortController();
      context.emit({
        type: 'terminal-start',
        sessionId,
        terminalId,
        toolCallId: context.toolCallId,
        command: args.command,
        cwd: context.runtime.cwd,
        cancel: () => stop.abort(),
      });
      let result;
      try {
        result = await context.runtime.exec(args.command, {
          cwd: context.runtime.cwd,
          timeoutMs: limitMs,
          signal: AbortSignal.any([context.signal, stop.signal]),
          maxOutputBytes,
          passEnv: options.envPassthrough,
          // A client terminal shows live output while the command runs, not only at the end.
          onTerminal: (clientTerminalId) => context.onUpdate({ content: [{ type: 'terminal', terminalId: clientTerminalId }] }),
          onOutput: (chunk) => context.emit({ type: 'terminal-output', sessionId, terminalId, data: Buffer.from(chunk).toString('base64') }),
        });
      } catch (error) {
        // A sandbox violation still carries how the process ended.
        const ended = (error as { result?: { exitCode: number | null; signal: string | null } }).result;
        context.emit({ type: 'terminal-exit', sessionId, terminalId, exitCode: ended?.exitCode ?? null, signal: ended?.signal ?? null });
        return errorResult(`Could not run the command: ${errorMessage(error)}`);
      }
      context.emit({ type: 'terminal-exit', sessionId, terminalId, exitCode: result.exitCode, signal: result.signal });

      const aborted = (context.signal.aborted || stop.signal.aborted) && !result.timedOut;
      const status = statusLine(result, limitMs, aborted ? (context.signal.aborted ? 'aborted' : 'stopped') : undefined);
      const parts = [status];
      if (result.output.length > 0) parts.push(result.output.replace(/\n$/, ''));
      else parts.push('(no output)');
      if (result.truncated) {
        parts.push(`(output truncated: showing the last ${Buffer.byteLength(result.output)} bytes)`);
      }
      const text = parts.join('\n');
      const display: ToolCallContent[] = result.terminalId
        ? [{ type: 'terminal', terminalId: result.terminalId }]
        : [{ type: 'text', text }];
      const failed = aborted || result.timedOut || result.exitCode !== 0;
      return { content: [{ type: 'text', text }], isError: failed || undefined, display };
    },
  });
}

/** `stopped`: the user cancelled the command's terminal; `aborted`: its tool call or turn was cancelled. */
function statusLine(result: { exitCode: number | null; signal: string | null; timedOut: boolean }, limitMs: number, ended?: 'aborted' | 'stopped'): string {
  if (ended === 'stopped') return 'Command stopped by the user (its terminal was cancelled).';
  if (ended === 'aborted') return 'Command aborted.';
  if (result.timedOut) return `Command timed out after ${limitMs} ms and was killed.`;
  if (result.exitCode === null) return `Command was killed by ${result.signal ?? 'a signal'}.`;
  return `Exit code: ${result.exitCode}`;
}

function shorten(command: string): string {
  const firstLine = command.trim().split('\n')[0];
  const more = firstLine.length > TITLE_MAX_CHARS || command.trim().includes('\n');
  return more ? `${firstLine.slice(0, TITLE_MAX_CHARS)}…` : firstLine;
}
