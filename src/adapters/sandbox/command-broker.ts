import type { Duplex } from 'node:stream';
import type { PermissionRuleStore } from '../../storage/permission-rule-file.js';
import type { Runtime } from '../../contracts/runtime.js';
import { errorMessage } from '../../errors/error-message.js';
import { agentMessage, lineSplitter, parseLine, type AgentMessage, type LauncherMessage } from './broker-messages.js';
import { SandboxViolationError } from './sandbox-violation-error.js';
import { startBrokerProgram, type SpawnProgram } from './broker-program.js';

/** Commands the agent may have running through the broker at once (background ones included). */
const MAX_RUNNING = 64;
/** Bad lines reported on stderr before the broker goes quiet about them (a flood is no log). */
const MAX_REPORTS = 20;

export interface CommandBrokerOptions {
  /** The launcher's end of the channel. */
  channel: Duplex;
  /** Runs a command in its own sandbox (the whole-agent walls, the state hidden, a pid namespace of its own) from a cwd. */
  runtimeFor: (cwd: string) => Runtime;
  /** Starts a long-lived program (a stdio MCP server) in a sandbox of its own, with its three pipes; absent: `spawn` is refused. */
  spawn?: SpawnProgram;
  /** Where "always" answers are written (the user's folder, which the sandboxed agent cannot write). */
  rules: PermissionRuleStore;
  warn: (message: string) => void;
  /** Variables every command gets (the sandbox's markers, which commands saw when they ran inside the agent's walls). */
  env?: Record<string, string>;
}

export interface CommandBroker {
  /** Kills every command still running (the agent is gone) and waits until they have ended. */
  close(): Promise<void>;
}

/**
 * The launcher's half of the command broker. In whole-agent mode the agent runs inside the
 * sandbox's pid namespace, so a command it spawned itself could read its `/proc/<pid>/environ`,
 * its descriptors and `.plaited/state/`. Instead it asks the launcher, over a private channel
 * that no command inherits, to run each command in a sandbox of the command's own, and to
 * persist "always" rules in the user's folder. Every line is untrusted input: a bad one is
 * reported on stderr and dropped, the broker lives on.
 */
export function serveCommandBroker(options: CommandBrokerOptions): CommandBroker {
  const { channel, warn } = options;
  const running = new Map<number, { abort: AbortController; done: Promise<void>; stdin?: (chunk: Buffer) => void }>();
  let reports = 0;
  let closed = false;

  /** False when the channel's buffer is full (wait for 'drain' before sending more output). */
  const send = (message: LauncherMessage): boolean => {
    if (!closed && channel.writable) return channel.write(`${JSON.stringify(message)}\n`);
    return true;
  };
  const report = (why: string) => {
    if (reports++ < MAX_REPORTS) warn(`command broker: ignored a message from the sandboxed agent: ${why}`);
  };

  /** Whether a new command or program may start under this id (else the agent has been told why). */
  const admit = (id: number) => {
    if (running.has(id)) return void report(`command id ${id} is already running`);
    if (running.size >= MAX_RUNNING) return void send({ t: 'error', id, message: `too many commands at once (${MAX_RUNNING}); wait for one to end or stop a background command or MCP server` });
    return true;
  };

  const exec = (message: Extract<AgentMessage, { t: 'exec' }>) => {
    if (!admit(message.id)) return;
    const abort = new AbortController();
    const done = (async () => {
      try {
        const result = await options.runtimeFor(message.cwd).exec(message.command, {
          cwd: message.cwd,
          signal: abort.signal,
          ...(message.timeoutMs !== undefined ? { timeoutMs: message.timeoutMs } : {}),
          ...(message.maxOutputBytes !== undefined ? { maxOutputBytes: message.maxOutputBytes } : {}),
          ...(message.env || options.env ? { env: { ...message.env, ...options.env } } : {}),
          ...(message.passEnv ? { passEnv: message.passEnv } : {}),
          onOutput: (chunk) => send({ t: 'output', id: message.id, data: Buffer.from(chunk).toString('base64') }),
        });
        send({ t: 'result', id: message.id, result: plainResult(result) });
      } catch (error) {
        if (SandboxViolationError.isInstance(error) && error.result) send({ t: 'result', id: message.id, result: plainResult(error.result), findings: error.findings });
        else send({ t: 'error', id: message.id, message: errorMessage(error) });
      } finally {
        running.delete(message.id);
      }
    })();
    running.set(message.id, { abort, done });
  };

  const spawnProgram = (message: Extract<AgentMessage, { t: 'spawn' }>) => {
    if (!admit(message.id)) return;
    if (!options.spawn) return send({ t: 'error', id: message.id, message: 'this launcher does not start programs for the agent' });
    const program = startBrokerProgram({ message, spawn: options.spawn, channel, send, warn, ...(options.env ? { env: options.env } : {}), onEnd: () => running.delete(message.id) });
    running.set(message.id, program);
  };

  const rule = (message: Extract<AgentMessage, { t: 'rule' }>) => {
    try {
      if (message.op === 'add') {
        options.rules.add(message.project, message.entry);
        send({ t: 'done', id: message.id });
      } else {
        send({ t: 'done', id: message.id, removed: options.rules.remove(message.project, message.entry) });
      }
    } catch (error) {
      send({ t: 'error', id: message.id, message: errorMessage(error) });
    }
  };

  const onLine = (line: string) => {
    const parsed = parseLine(agentMessage, line);
    if (!parsed.ok) return report(parsed.reason);
    const message = parsed.value;
    if (message.t === 'exec') exec(message);
    else if (message.t === 'spawn') spawnProgram(message);
    else if (message.t === 'stdin') {
      const target = running.get(message.id)?.stdin;
      if (target) target(Buffer.from(message.data, 'base64'));
      else report(`no program ${message.id} is running to take its input`);
    } else if (message.t === 'abort') running.get(message.id)?.abort.abort();
    else rule(message);
  };

  channel.on('data', lineSplitter(onLine, () => report('a line over the length limit')));
  channel.on('error', (error: NodeJS.ErrnoException) => {
    // The agent exited with output of ours still unread (a server's stderr, say): the channel's end, not a fault.
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
    warn(`command broker: channel error: ${error.message}`);
  });
  const stopAll = () => {
    for (const command of running.values()) command.abort.abort();
  };
  channel.on('close', stopAll);

  return {
    async close() {
      closed = true;
      stopAll();
      await Promise.all([...running.values()].map((command) => command.done));
      channel.destroy();
    },
  };
}

function plainResult(result: { output: string; exitCode: number | null; signal: string | null; truncated: boolean; timedOut: boolean }) {
  return { output: result.output, exitCode: result.exitCode, signal: result.signal, truncated: result.truncated, timedOut: result.timedOut };
}
