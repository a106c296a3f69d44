import { createReadStream, createWriteStream } from 'node:fs';
import { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type { PermissionRuleEntry } from '../../storage/permission-rule-file.js';
import type { ExecOptions, ExecResult } from '../../contracts/runtime.js';
import type { SandboxFinding } from './explain-sandbox-failure.js';
import { BROKER_FD_ENV, MAX_BROKER_COMMAND, launcherMessage, lineSplitter, parseLine, type AgentMessage, type LauncherMessage } from './broker-messages.js';
import { CommandBrokerError } from './command-broker-error.js';

/** What the launcher answered for a command: its result, and the sandbox's findings when it stopped it. */
export interface BrokeredResult {
  result: ExecResult;
  findings?: SandboxFinding[];
}

/** The sandboxed agent's half of the command broker (command-broker.ts). */
export interface BrokerClient {
  exec(command: string, options: ExecOptions & { cwd: string }): Promise<BrokeredResult>;
  /** Asks the launcher to add or remove a project rule in the user's folder; resolves once written. */
  rule(op: 'add' | 'remove', project: string, entry: PermissionRuleEntry): Promise<boolean>;
}

type Pending = { settle: (message: LauncherMessage | Error) => void; onOutput?: (chunk: Uint8Array) => void };

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
        if (message.t === 'output') waiting.onOutput?.(Buffer.from(message.data, 'base64'));
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

  const request = (build: (id: number) => AgentMessage, onOutput?: (chunk: Uint8Array) => void) =>
    new Promise<LauncherMessage>((resolve, reject) => {
      if (gone) return reject(gone);
      const id = nextId++;
      pending.set(id, { settle: (message) => (message instanceof Error ? reject(message) : resolve(message)), ...(onOutput ? { onOutput } : {}) });
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
        const message = await answer;
        if (message.t === 'result') return { result: message.result, ...(message.findings ? { findings: message.findings } : {}) };
        throw new CommandBrokerError('command_failed', message.t === 'error' ? message.message : `unexpected answer "${message.t}" from the launcher`);
      } finally {
        options.signal?.removeEventListener('abort', abort);
      }
    },
    async rule(op, project, entry) {
      const message = await request((id) => ({ t: 'rule', id, op, project, entry }));
      if (message.t === 'done') return message.removed ?? true;
      throw new CommandBrokerError('rule_not_saved', message.t === 'error' ? message.message : `unexpected answer "${message.t}" from the launcher`);
    },
  };
}
