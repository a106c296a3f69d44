import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Duplex, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Agent, ProcessOptions, PromptInput, SessionInfo } from '../../agent/agent.js';
import type { AgentOutput } from '../../contracts/agent-output.js';
import type { PlaitedConfig } from '../../config/schema.js';
import { createLocalRuntime } from '../../tools/local-runtime.js';
import type { Runtime } from '../../contracts/runtime.js';
import { SECRETS_FD_ENV, sendSecrets, splitSecrets } from '../../tools/secret-hand-over.js';
import { agentStateDir } from '../../tools/agent-state-path.js';
import type { AgentAdapter } from '../agent-adapter.js';
import type { SandboxAdapterOptions } from './sandbox-adapter-options.js';
import { DELEGATED_PIDS_CGROUP_ENV, createProcessLimitGroup } from './process-limit-group.js';
import { dieWithAgent } from '../../tools/die-with-agent.js';
import { removeStalePlaceholders, settlePlaceholders } from '../../tools/protected-placeholders.js';
import { resolveSandboxMode, warnOnStderr } from './sandbox-availability.js';
import { sandboxPolicyFromConfig, type SandboxPolicy } from './sandbox-policy.js';
import { releaseCommand, resetSandboxRuntime, wrapShellCommand } from './sandbox-runtime-host.js';
import { SandboxUnavailableError } from './sandbox-unavailable-error.js';
import { SANDBOXED_ENV, createSandboxedRuntime, insideSandbox } from './sandboxed-runtime.js';
import { shellQuote } from '../../tools/shell-quote.js';
import { useProcessLedger } from '../../tools/process-ledger.js';
import { ensureStateFolder } from '../../storage/state-folder.js';
import { createPermissionRuleFile } from '../../storage/permission-rule-file.js';
import { userConfigDir } from '../../config/user-config-dir.js';
import { BROKER_FD_ENV } from './broker-messages.js';
import { brokerClient } from './broker-client.js';
import { serveCommandBroker, type CommandBroker } from './command-broker.js';
import { spawnSandboxedProcess } from './spawn-sandboxed-process.js';
import { sandboxedAgentPid } from './sandboxed-agent-pid.js';

/**
 * The sandbox adapter, in its two shapes:
 *
 * - Whole agent (`--adapter sandbox --adapter acp`, or `adapters.sandbox.enabled`):
 *   `runSandboxed` re-executes this CLI, minus the sandbox adapter, as a child
 *   under bubblewrap with `PLAITED_SANDBOXED=1`. The child inherits stdin,
 *   stdout and stderr, so the protocol's bytes pass through untouched; it dies
 *   with this process. Its file tools run inside the walls; its bash and
 *   background commands and its stdio MCP servers are run by this process, each in
 *   a sandbox of its own, on the child's request (command-broker.ts).
 * - Per command (`adapters.sandbox.commands`): `sandboxAdapter.wrap(agent)`
 *   returns the agent with every turn's runtime replaced by a sandboxed one.
 */

/** Set on the child to say whether its walls are real (`1`) or development mode let it run bare (`0`). */
export const SANDBOX_ISOLATED_ENV = 'PLAITED_SANDBOX_ISOLATED';
/** Exit code when isolation is required but unavailable (EX_CONFIG). */
export const EXIT_SANDBOX_UNAVAILABLE = 78;
/** Tasks for the agent itself (Node's threads, MCP servers, the proxy bridges' forks). */
const AGENT_TASKS = 1024;
/** Commands that may run at once, each within the process limit (sizes the commands' shared group). */
const PARALLEL_COMMANDS = 4;

export interface SandboxStatus {
  /** Whether the agent (this process, or the child it runs) is inside the sandbox. */
  isolated: boolean;
  /** The sandboxed process: the child's pid in the parent, this pid inside; null when none runs. */
  pid: number | null;
}

let parentStatus: SandboxStatus = { isolated: false, pid: null };

export function sandboxStatus(): SandboxStatus {
  if (insideSandbox()) return { isolated: process.env[SANDBOX_ISOLATED_ENV] === '1', pid: process.pid };
  return { ...parentStatus };
}

export interface RunSandboxedOptions {
  /** The CLI arguments for the child (the sandbox adapter already removed). */
  argv: string[];
  config: PlaitedConfig;
  cwd: string;
  /** The script to re-execute; default: this process's main script. */
  script?: string;
  /** Environment for the child (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Where warnings go; stderr by default. */
  warn?: (message: string) => void;
  /** Called once the child runs (tests read the pid from it). */
  onStart?: (status: SandboxStatus) => void;
  /** Open file descriptors the child inherits as fd 3, 4, … (listening sockets made outside the sandbox's network). */
  inheritFds?: readonly number[];
}

/**
 * Runs the agent as a sandboxed child and resolves to its exit code. Refuses
 * (exit 78, the reason and the fix on stderr) when isolation is required but
 * unavailable; in development it warns and runs the child unsandboxed.
 */
export async function runSandboxed(options: RunSandboxedOptions): Promise<number> {
  const warn = options.warn ?? warnOnStderr;
  let mode;
  try {
    mode = await resolveSandboxMode({ config: options.config.adapters.sandbox, env: options.env, warn });
  } catch (error) {
    if (!SandboxUnavailableError.isInstance(error)) throw error;
    warn(error.message);
    return EXIT_SANDBOX_UNAVAILABLE;
  }
  // Placeholders a killed run left (it could not clean up after itself) go before new walls are built.
  removeStalePlaceholders(options.cwd);
  const policy = wholeAgentPolicy(options.config, options.cwd, options.env?.HOME);
  // The child loads these at its start (and at the next one): read-only inside, like the config.
  policy.denyWrite.push(...startupFilesInArgv(options.argv, options.cwd).filter((file) => !policy.denyWrite.includes(file)));
  // The agent's commands: the same walls, but the agent's state hidden (copied before the agent's own grants below).
  const commandPolicy: SandboxPolicy = { ...policy, allowWrite: [...policy.allowWrite], denyRead: [...policy.denyRead, agentStateDir(options.cwd)] };
  const script = options.script ?? process.argv[1];
  const preload = preloadPath();
  const nodeArgs = [...(preload ? ['--import', preload] : []), script, ...childArgv(options.argv)];
  const commandLine = [process.execPath, ...nodeArgs].map(shellQuote).join(' ');

  // As root, `ulimit -u` binds nothing: the agent gets a pids group of its own, and
  // the child gets a second one, bound writable, to make per-command groups in. The
  // broker's commands and MCP servers get theirs from this process; the child's second
  // group is for the commands it still runs itself, those of an ACP client's terminal
  // (limits-only mode: the line the client runs joins the group the child made).
  const limitProcesses = mode === 'isolated' && process.geteuid?.() === 0 && policy.limits.processes !== null;
  const group = limitProcesses ? createProcessLimitGroup(AGENT_TASKS) : null;
  const commandsGroup = limitProcesses ? createProcessLimitGroup((policy.limits.processes ?? 0) * PARALLEL_COMMANDS) : null;
  if (commandsGroup) policy.allowWrite.push(commandsGroup.path);
  let wrapped = false;
  let broker: CommandBroker | null = null;
  try {
    let line = `exec ${commandLine}`;
    if (mode === 'isolated') {
      line = await wrapShellCommand(commandLine, policy, `plaited-agent-${process.pid}`);
      wrapped = true;
    }
    if (group) line = `${group.joinCommand} || exit 125\n${line}`;
    line = dieWithAgent(line);

    // The agent's secrets reach the child on a descriptor after the inherited ones, never in its environment.
    const { env, secrets } = splitSecrets(options.env ?? process.env);
    const secretsFd = 3 + (options.inheritFds?.length ?? 0);
    // The command broker's channel (command-broker.ts): only in isolated mode, where commands need walls of their own.
    const brokerFd = mode === 'isolated' ? secretsFd + 1 : null;
    const child = spawn('/bin/sh', ['-c', line], {
      cwd: options.cwd,
      stdio: ['inherit', 'inherit', 'inherit', ...(options.inheritFds ?? []), 'pipe', ...(brokerFd ? ['pipe' as const] : [])],
      env: {
        ...env,
        [SECRETS_FD_ENV]: String(secretsFd),
        ...(brokerFd ? { [BROKER_FD_ENV]: String(brokerFd) } : {}),
        [SANDBOXED_ENV]: '1',
        [SANDBOX_ISOLATED_ENV]: mode === 'isolated' ? '1' : '0',
        ...(commandsGroup ? { [DELEGATED_PIDS_CGROUP_ENV]: commandsGroup.path } : {}),
      },
    });
    sendSecrets(child.stdio[secretsFd] as Writable | null, secrets);
    broker = brokerFd ? startBroker(child.stdio[brokerFd] as Duplex, commandPolicy, options.cwd, warn) : null;
    parentStatus = { isolated: mode === 'isolated', pid: child.pid ?? null };
    options.onStart?.({ ...parentStatus });

    const detach = killWithParent(child, options.config.server.shutdownGraceMs);
    const code = await new Promise<number>((done) => {
      child.once('error', (error) => {
        warn(`could not start the sandboxed agent: ${error.message}`);
        done(1);
      });
      child.once('exit', (exitCode, signal) => done(exitCode ?? (signal ? 128 + constants.signals[signal] : 1)));
    });
    detach();
    return code;
  } finally {
    await broker?.close();
    // Also when wrapping threw: the pids groups are directories in the host's cgroup tree.
    parentStatus = { isolated: false, pid: null };
    if (wrapped) {
      // The sandbox's namespace may outlive its first process by a moment: its binds go first.
      await settlePlaceholders(policy.placeholders.map((spec) => spec.path));
      await releaseCommand();
    }
    // The proxies and their bridges (a socket in $TMPDIR each) go before the process exits.
    await resetSandboxRuntime();
    await Promise.all([group?.dispose(), commandsGroup?.dispose()]);
  }
}

/**
 * Serves the sandboxed agent's commands and rule writes (command-broker.ts). Its commands
 * are this process's children, recorded in its process ledger so that a restart after a
 * SIGKILL reaps them.
 */
function startBroker(channel: Duplex, policy: SandboxPolicy, cwd: string, warn: (message: string) => void): CommandBroker {
  const reaped = useProcessLedger(join(ensureStateFolder(cwd), 'processes'));
  if (reaped > 0) warn(`stopped ${reaped} command(s) a previous plaited-agent left running when it was killed`);
  return serveCommandBroker({
    channel,
    runtimeFor: (dir) => createSandboxedRuntime(createLocalRuntime(dir), policy, { mode: 'isolated' }),
    // The agent's stdio MCP servers, under the same walls as its commands.
    spawn: (argv, spawnOptions, handlers) => spawnSandboxedProcess(argv, { ...spawnOptions, policy }, handlers),
    rules: createPermissionRuleFile(userConfigDir()),
    warn,
    env: { [SANDBOXED_ENV]: '1', [SANDBOX_ISOLATED_ENV]: '1' },
  });
}

/**
 * The policy for the agent itself: the configured one plus the project (its
 * file tools edit it, each edit approved through the permission flow) and the
 * folder its session store and index live in. Its commands get these walls
 * too, with the state folder hidden (the command broker runs them in a sandbox
 * of their own), so under the whole-agent wrapper a command may write the
 * project; `adapters.sandbox.commands` alone keeps commands to `allowWrite`.
 */
export function wholeAgentPolicy(config: PlaitedConfig, cwd: string, home?: string): SandboxPolicy {
  const extraWrite = [resolve(cwd), resolve(cwd, '.plaited')];
  if (config.agent.stateDb) extraWrite.push(dirname(resolve(cwd, config.agent.stateDb)));
  if (config.mcp.indexDb) extraWrite.push(dirname(resolve(cwd, config.mcp.indexDb)));
  return sandboxPolicyFromConfig(config, cwd, { extraWrite, ...(home ? { home } : {}) });
}

/**
 * The child's arguments: the caller's, unchanged except for an `--adapter`
 * left without its value. `--adapter sandbox` stays: inside (`PLAITED_SANDBOXED=1`)
 * the CLI does not re-wrap itself, and the sandbox adapter then applies the
 * command limits and violation reports to the child's own commands.
 */
export function childArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--adapter') {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('-')) continue;
    }
    out.push(arg);
  }
  return out;
}

/** Existing files named by `--config` and by path-like `--adapter` values (either `--flag value` or `--flag=value`). */
export function startupFilesInArgv(argv: readonly string[], cwd: string): string[] {
  const files: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    const match = /^--(adapter|config)(?:=(.*))?$/.exec(arg);
    if (!match) continue;
    const value = match[2] ?? argv[++index];
    if (value === undefined || (match[1] === 'adapter' && !value.includes('/') && !value.includes('.'))) continue;
    const file = resolve(cwd, value);
    if (existsSync(file)) files.push(file);
  }
  return files;
}

/** The compiled preload beside this file; absent when running from TypeScript sources. */
function preloadPath(): string | null {
  const path = fileURLToPath(new URL('./sandbox-child-preload.js', import.meta.url));
  return existsSync(path) ? path : null;
}

/** What an agent gets to stop once signalled (its MCP servers' closes, the placeholders), beyond a drain's grace. */
const STOP_MARGIN_MS = 10_000;

/**
 * The child dies with this process: on its signals (handed to the agent itself, which stops) and on
 * its exit. A SIGKILL follows a signal the agent did not end on: after `graceMs` and a margin for a
 * SIGTERM (a network face drains its running turns that long first), after the margin otherwise.
 */
function killWithParent(child: ChildProcess, graceMs: number): () => void {
  const forward = (signal: NodeJS.Signals) => () => {
    const agent = child.pid === undefined ? undefined : sandboxedAgentPid(child.pid, process.execPath);
    if (agent === undefined) child.kill(signal);
    else process.kill(agent, signal);
    setTimeout(() => child.kill('SIGKILL'), (signal === 'SIGTERM' ? graceMs : 0) + STOP_MARGIN_MS).unref();
  };
  const handlers = (['SIGTERM', 'SIGINT', 'SIGHUP'] as const).map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  const onExit = () => child.kill('SIGKILL');
  process.on('exit', onExit);
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
    process.off('exit', onExit);
  };
}

export type { SandboxAdapterOptions } from './sandbox-adapter-options.js';

/**
 * Per-command mode as an adapter: `wrap` returns the agent with each turn's
 * runtime (the client's terminal or the local shell) replaced by a sandboxed
 * one. Inside the whole-agent sandbox it adds only the limits and the
 * violation reports. When isolation is unavailable it follows the availability
 * rules (warn in development, refuse in production).
 */
export const sandboxAdapter: AgentAdapter<SandboxAdapterOptions, Agent> = {
  name: 'sandbox',
  async wrap(agent, options) {
    // Opened before this agent starts anything, so that no process it starts inherits the channel.
    if (insideSandbox()) brokerClient();
    const mode = insideSandbox() ? 'isolated' : await resolveSandboxMode({ config: options.config.adapters.sandbox, warn: options.warn });
    if (mode === 'unsandboxed') return agent;
    if (!insideSandbox()) removeStalePlaceholders(process.cwd());
    return sandboxCommands(agent, (cwd, session) => {
      const additionalRoots = session?.options?.additionalDirectories ?? [];
      const policy = sandboxPolicyFromConfig(options.config, cwd, { ...(session ? { allowEdits: session.mode === 'accept-edits' } : {}), additionalRoots });
      // The agent's own state (every principal's transcripts) is no command's to read: tools/agent-state-path.ts.
      policy.denyRead.push(...[cwd, ...additionalRoots].map(agentStateDir));
      return policy;
    });
  },
};

const SANDBOXED_AGENT = Symbol.for('plaited.sandboxedAgent');

/** The agent with every turn's runtime sandboxed under the policy for the session's cwd (and its other roots). */
export function sandboxCommands(agent: Agent, policyFor: (cwd: string, session?: SessionInfo) => SandboxPolicy): Agent {
  // Wrapping twice (config plus an explicit adapter) must not nest one sandbox in another.
  if ((agent as Partial<Record<typeof SANDBOXED_AGENT, true>>)[SANDBOXED_AGENT]) return agent;
  const cleaned = new Set<string>();
  async function* process(input: PromptInput, options: ProcessOptions = {}): AsyncGenerator<AgentOutput> {
    const session = await agent.sessions.get(input.sessionId);
    const cwd = options.runtime?.cwd ?? session?.cwd ?? globalThis.process.cwd();
    // Once per project: what a killed run of this agent left in its .plaited goes before new walls.
    if (!insideSandbox() && !cleaned.has(cwd)) {
      cleaned.add(cwd);
      removeStalePlaceholders(cwd);
    }
    const inner: Runtime = options.runtime ?? createLocalRuntime(cwd);
    yield* agent.process(input, { ...options, runtime: createSandboxedRuntime(inner, policyFor(cwd, session)) });
  }
  // Once the agent has stopped (its commands and MCP servers gone), the sandbox's proxies stop too.
  const stop = async (options?: { graceMs?: number }) => {
    try {
      await agent.stop(options);
    } finally {
      await resetSandboxRuntime();
    }
  };
  return new Proxy(agent, {
    get(target, property, receiver) {
      if (property === 'process') return process;
      if (property === 'stop') return stop;
      if (property === SANDBOXED_AGENT) return true;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
