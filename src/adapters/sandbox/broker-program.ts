import type { Duplex } from 'node:stream';
import { errorMessage } from '../../errors/error-message.js';
import type { AgentMessage, LauncherMessage } from './broker-messages.js';
import type { SandboxedProcess, SandboxedProcessHandlers } from './spawn-sandboxed-process.js';

/** Input a spawned program may leave unread (queued while its sandbox is built, or in its pipe) before it is stopped. */
const MAX_PENDING_INPUT = 64 * 1024 * 1024;

export type SpawnProgram = (argv: readonly string[], options: { cwd: string; env?: Record<string, string> }, handlers: SandboxedProcessHandlers) => Promise<SandboxedProcess>;

export interface BrokerProgram {
  abort: AbortController;
  /** Settles once the program has ended and its `exit` is sent. */
  done: Promise<void>;
  stdin: (chunk: Buffer) => void;
}

export interface StartBrokerProgramOptions {
  message: Extract<AgentMessage, { t: 'spawn' }>;
  spawn: SpawnProgram;
  channel: Duplex;
  /** Writes one message; false when the channel's buffer is full. */
  send: (message: LauncherMessage) => boolean;
  warn: (message: string) => void;
  /** Variables every program gets besides the message's own. */
  env?: Record<string, string>;
  onEnd: () => void;
}

/**
 * One program the launcher runs for the agent (a stdio MCP server; command-broker.ts): its
 * stdout and stderr relayed as `output` messages, its `exit` last. Input that arrives while its
 * sandbox is built waits, up to the bound a running program may leave unread; output waits
 * in the program's pipe while the channel to the agent is full, rather than in this process.
 */
export function startBrokerProgram(options: StartBrokerProgramOptions): BrokerProgram {
  const { message, send, channel } = options;
  const { id } = message;
  const abort = new AbortController();
  const queued: Buffer[] = [];
  let queuedBytes = 0;
  let program: SandboxedProcess | undefined;
  const stdin = (chunk: Buffer) => {
    if (program ? program.write(chunk) : (queuedBytes += chunk.length) <= MAX_PENDING_INPUT && queued.push(chunk) > 0) return;
    options.warn(`command broker: stopped program ${id}: it left more than 64 MB of input unread`);
    abort.abort();
  };
  const relay = (output: LauncherMessage) => {
    if (send(output) || !program) return;
    program.pauseOutput();
    channel.once('drain', () => program?.resumeOutput());
  };
  const done = new Promise<void>((ended) => {
    const env = message.env || options.env ? { ...message.env, ...options.env } : undefined;
    const handlers: SandboxedProcessHandlers = {
      onStdout: (chunk) => relay({ t: 'output', id, data: chunk.toString('base64') }),
      onStderr: (chunk) => relay({ t: 'output', id, stream: 'stderr', data: chunk.toString('base64') }),
      onExit: (code, signal, error) => {
        options.onEnd();
        send({ t: 'exit', id, code, signal, ...(error ? { error } : {}) });
        ended();
      },
    };
    options.spawn(message.argv, { cwd: message.cwd, ...(env ? { env } : {}) }, handlers).then(
      (started) => {
        program = started;
        for (const chunk of queued.splice(0)) stdin(chunk);
        if (abort.signal.aborted) started.kill();
        else abort.signal.addEventListener('abort', () => started.kill(), { once: true });
      },
      (error: unknown) => handlers.onExit(null, null, errorMessage(error)),
    );
  });
  return { abort, done, stdin };
}
