import { createReadStream, createWriteStream } from 'node:fs';
import { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type { PermissionRuleEntry } from '../../storage/permission-rule-file.js';
import type { ExecOptions, ExecResult } from '../../contracts/runtime.js';
import type { SandboxFinding } from './explain-sandbox-failure.js';
import { BROKER_FD_ENV, MAX_BROKER_COMMAND, agentMessage, launcherMessage, lineSplitter, parseLine, type AgentMessage, type LauncherMessage } from './broker-messages.js';
import { CommandBrokerError } from './command-broker-error.js';

/** What the launcher answered for a command: its result, and the sandbox's findings when it stopped it. */
export interface BrokeredResult {
  result: ExecResult;
  findings?: SandboxFinding[];
}

/** What a program the launcher started for the agent reports. */
export interface BrokeredProgramHandlers {
  onStdout(chunk: Uint8Array): void;
  onStderr(chunk: Uint8Array): void;
  /** Once: the program ended, could not start (`error`), or the channel went away. */
  onExit(exit: { code: number | null; signal: string | null; error?: string }): void;
}

/** A long-lived program the launcher runs for the agent in a sandbox of its own (a stdio MCP server). */
export interface BrokeredProgram {
  write(chunk: Uint8Array): void;
  /** Stops it (and everything it started). */
  kill(): void;
}

/** The sandboxed agent's half of the command broker (command-broker.ts). */
export interface BrokerClient {
  exec(command: string, options: ExecOptions & { cwd: string }): Promise<BrokeredResult>;
  /** Starts a program with its pipes (argv run without a shell) in a sandbox of its own. */
  spawn(argv: readonly string[], options: { cwd: string; env?: Record<string, string> }, handlers: BrokeredProgramHandlers): BrokeredProgram;
  /** Asks the launcher to add or remove a project rule in the user's folder; resolves once written. */
  rule(op: 'add' | 'remove', project: string, entry: PermissionRuleEntry): Promise<boolean>;
}

type Pending = { settle: (message: LauncherMessage | Error) => void; onOutput?: (chunk: Uint8Array) => void; onStderr?: (chunk: Uint8Array) => void };

let client: BrokerClient | null | undefined;

/**
 * The channel the whole-agent launcher handed this process (`PLAITED_BROKER_FD`), opened
 * once; null outside the whole-agent sandbox. Opened early (the sandbox adapter asks at
 * wrap time): Node marks the descriptor close-on-exec when it opens it, so no process
 * this agent starts afterwards (stdio MCP servers, rg) inherits the channel.
 */
export function brokerClient(env: NodeJS.ProcessEnv = process.env): BrokerClient | null {
  if (client !== undefined) return client;
  const marker = env[BROKER_FD_ENV];
  delete env[BROKER_FD_ENV];
  const fd = Number(marker);
  client = marker !== undefined && Number.isInteger(fd) && fd > 2 ? openClient(openChannel(fd)) : null;
  return client;
}

/**
 * The descriptor as a stream. Bun's `net.Socket` cannot adopt a descriptor, so under Bun it is
 * read and written as a file (a socketpair reads and writes like one; Node would park a
 * thread-pool thread on the blocking read, hence the socket there).
 */
function openChannel(fd: number): Duplex {
  if (process.versions.bun === undefined) {
    const socket = new Socket({ fd, readable: true, writable: true });
    // The channel never keeps the agent alive by itself; the protocol's stdin does.
    socket.unref();
    return socket;
  }
  return Duplex.from({ readable: createReadStream('', { fd, autoClose: false }), writable: createWriteStream('', { fd, autoClose: false }) });
}

function openClient(socket: Duplex): BrokerClient {
  const awaited = keepAliveWhileAwaited(socket);
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let gone: Error | undefined;

  socket.on(
    'data',
    lineSplitter(
      (line) => {
        const parsed = parseLine(launcherMessage, line);
        if (!parsed.ok) return process.stderr.write(`plaited-agent: command broker: ignored a message from the launcher: ${parsed.reason}\n`);
        const message = parsed.value;
        const waiting = pending.get(message.id);
        if (!waiting) return;
        if (message.t === 'output') (message.stream === 'stderr' ? waiting.onStderr : waiting.onOutput)?.(Buffer.from(message.data, 'base64'));
        else {
          pending.delete(message.id);
          waiting.settle(message);
        }
      },
      () => process.stderr.write('plaited-agent: command broker: dropped an over-long message from the launcher\n'),
    ),
  );
  const fail = (error: Error) => {
    gone ??= error;
    for (const waiting of pending.values()) waiting.settle(gone);
    pending.clear();
  };
  socket.on('error', (error) => fail(new CommandBrokerError('broker_gone', `the launcher's command channel failed: ${error.message}`)));
  socket.on('close', () => fail(new CommandBrokerError('broker_gone', 'the launcher closed the command channel (it is stopping)')));

  const request = (build: (id: number) => AgentMessage, onOutput?: (chunk: Uint8Array) => void, onStderr?: (chunk: Uint8Array) => void) =>
    new Promise<LauncherMessage>((resolve, reject) => {
      if (gone) return reject(gone);
      const id = nextId++;
      pending.set(id, { settle: (message) => (message instanceof Error ? reject(message) : resolve(message)), ...(onOutput ? { onOutput } : {}), ...(onStderr ? { onStderr } : {}) });
      socket.write(`${JSON.stringify(build(id))}\n`);
      return id;
    });

  return {
    async exec(command, options) {
      if (command.length > MAX_BROKER_COMMAND) throw new CommandBrokerError('command_too_long', `the command is ${command.length} characters; at most ${MAX_BROKER_COMMAND} can be run (write a script file and run that)`);
      let id = 0;
      const abort = () => {
        if (id > 0 && pending.has(id) && !gone) socket.write(`${JSON.stringify({ t: 'abort', id })}\n`);
      };
      const answer = request((assigned) => {
        id = assigned;
        return {
          t: 'exec',
          id: assigned,
          command,
          cwd: options.cwd,
          ...(options.timeoutMs !== undefined && options.timeoutMs > 0 ? { timeoutMs: Math.min(Math.ceil(options.timeoutMs), 2 ** 31 - 1) } : {}),
          ...(options.maxOutputBytes !== undefined && options.maxOutputBytes > 0 ? { maxOutputBytes: Math.ceil(options.maxOutputBytes) } : {}),
          ...(options.env ? { env: options.env } : {}),
          ...(options.passEnv ? { passEnv: [...options.passEnv] } : {}),
        };
      }, options.onOutput);
      if (options.signal?.aborted) abort();
      options.signal?.addEventListener('abort', abort, { once: true });
      try {
        const message = await awaited(answer);
        if (message.t === 'result') return { result: message.result, ...(message.findings ? { findings: message.findings } : {}) };
        throw new CommandBrokerError('command_failed', message.t === 'error' ? message.message : `unexpected answer "${message.t}" from the launcher`);
      } finally {
        options.signal?.removeEventListener('abort', abort);
      }
    },
    spawn(argv, options, handlers) {
      return spawnThroughBroker({ argv, ...options }, handlers, request, (message) => {
        if (!gone) socket.write(`${JSON.stringify(message)}\n`);
      });
    },
    async rule(op, project, entry) {
      const message = await awaited(request((id) => ({ t: 'rule', id, op, project, entry })));
      if (message.t === 'done') return message.removed ?? true;
      throw new CommandBrokerError('rule_not_saved', message.t === 'error' ? message.message : `unexpected answer "${message.t}" from the launcher`);
    },
  };
}

/**
 * The channel never keeps the agent alive by itself (the protocol's stdin does), but a turn waiting
 * for the launcher's answer must: under `-p` nothing else is left while a command runs, and Node
 * exited 0 mid-turn, with no answer. A started program (an MCP server) does not hold it.
 */
function keepAliveWhileAwaited(socket: Duplex): <T>(answer: Promise<T>) => Promise<T> {
  const handle = socket as Partial<Pick<Socket, 'ref' | 'unref'>>;
  let waiting = 0;
  return async (answer) => {
    if (waiting++ === 0) handle.ref?.call(socket);
    try {
      return await answer;
    } finally {
      if (--waiting === 0) handle.unref?.call(socket);
    }
  };
}

type Request = (build: (id: number) => AgentMessage, onOutput?: (chunk: Uint8Array) => void, onStderr?: (chunk: Uint8Array) => void) => Promise<LauncherMessage>;

/** A `spawn` request and the program's handle: input as `stdin` messages, `abort` to kill, its `exit` last. */
function spawnThroughBroker(
  spec: { argv: readonly string[]; cwd: string; env?: Record<string, string> },
  handlers: BrokeredProgramHandlers,
  request: Request,
  write: (message: AgentMessage) => void,
): BrokeredProgram {
  const spawn = (id: number): AgentMessage => ({ t: 'spawn', id, argv: [...spec.argv], cwd: spec.cwd, ...(spec.env ? { env: spec.env } : {}) });
  // Checked here as the launcher will check it: a refusal it only logs would leave the client waiting.
  const checked = agentMessage.safeParse(spawn(0));
  if (!checked.success) {
    const why = checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ').slice(0, 500);
    queueMicrotask(() => handlers.onExit({ code: null, signal: null, error: `the launcher cannot start it (${why}); variable names must be letters, digits and _` }));
    return { write: () => undefined, kill: () => undefined };
  }
  let id = 0;
  let ended = false;
  const send = (message: AgentMessage) => {
    if (!ended) write(message);
  };
  const end = (exit: { code: number | null; signal: string | null; error?: string }) => {
    ended = true;
    handlers.onExit(exit);
  };
  request((assigned) => spawn((id = assigned)), handlers.onStdout, handlers.onStderr).then(
    (message) => {
      if (message.t === 'exit') end({ code: message.code, signal: message.signal, ...(message.error ? { error: message.error } : {}) });
      else end({ code: null, signal: null, error: message.t === 'error' ? message.message : `unexpected answer "${message.t}" from the launcher` });
    },
    (error: Error) => end({ code: null, signal: null, error: error.message }),
  );
  return {
    write(chunk) {
      // One message per at most 1 MB of input, well under the channel's line limit once in base64.
      for (let start = 0; start < chunk.length; start += 1024 * 1024) {
        send({ t: 'stdin', id, data: Buffer.from(chunk.subarray(start, start + 1024 * 1024)).toString('base64') });
      }
    },
    kill() {
      send({ t: 'abort', id });
    },
  };
}
