import { spawn } from 'node:child_process';
import { dieWithAgent } from '../../tools/die-with-agent.js';
import { processLedger } from '../../tools/process-ledger.js';
import { PROCESS_TAG_ENV, killTaggedProcesses, newProcessTag } from '../../tools/process-tree.js';
import { secretsToUnset, toolEnvironment } from '../../tools/secret-env.js';
import { shellQuote } from '../../tools/shell-quote.js';
import { createProcessLimitGroup } from './process-limit-group.js';
import { limitsShellPrefix } from './resource-limits.js';
import type { SandboxPolicy } from './sandbox-policy.js';
import { releaseCommand, wrapShellCommand } from './sandbox-runtime-host.js';
import { WAIT_FOR_PROXY_BRIDGE, proxyBypassPrefix } from './sandboxed-runtime.js';

export interface SpawnSandboxedOptions {
  cwd: string;
  policy: SandboxPolicy;
  /** Variables set on purpose (a stdio MCP server's config `env`): kept whatever their name. */
  env?: Record<string, string>;
}

export interface SandboxedProcessHandlers {
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
  /** Once, when the program has ended and its output is read (`error`: it could not start). */
  onExit(code: number | null, signal: string | null, error?: string): void;
}

export interface SandboxedProcess {
  /** Input for the program; false (and the program is stopped) when it has left more than 64 MB unread. */
  write(chunk: Buffer): boolean;
  /** Stops and resumes reading its output (back-pressure: the channel to the agent is full). */
  pauseOutput(): void;
  resumeOutput(): void;
  /** Stops the program and everything it started (SIGTERM, SIGKILL after a grace period). */
  kill(): void;
}

const KILL_GRACE_MS = 500;
/** Input a program may leave unread before it is stopped (the agent's bytes are not buffered without end). */
const MAX_PENDING_INPUT = 64 * 1024 * 1024;
/** After the program exits, what is still in its pipes gets this long to arrive. */
const DRAIN_AFTER_EXIT_MS = 200;
let sequence = 0;

/**
 * Starts a long-lived program with its three pipes (a stdio MCP server) in a sandbox of its
 * own, as `createSandboxedRuntime` runs a command in `isolated` mode: the policy's walls and
 * network proxy, a pid namespace of its own, the memory and process limits (no wall clock: a
 * server lives as long as its client), an allow-listed environment with the launcher's
 * secrets unset, recorded in the process ledger, dying with this process. The argv runs
 * without a shell's word splitting (each word is quoted).
 */
export async function spawnSandboxedProcess(argv: readonly string[], options: SpawnSandboxedOptions, handlers: SandboxedProcessHandlers): Promise<SandboxedProcess> {
  const { policy } = options;
  const isRoot = process.geteuid?.() === 0;
  const group = isRoot && policy.limits.processes !== null ? createProcessLimitGroup(policy.limits.processes) : null;
  const prefix = limitsShellPrefix(policy.limits, { processLimitInShell: !isRoot });
  const secrets = secretsToUnset(process.env, { explicit: options.env });
  const inner = `${prefix ? `${prefix} || exit 125\n` : ''}${secrets.length > 0 ? `unset ${secrets.join(' ')}; ` : ''}${proxyBypassPrefix(policy)}exec ${argv.map(shellQuote).join(' ')}`;
  let line: string;
  try {
    line = await wrapShellCommand(`${WAIT_FOR_PROXY_BRIDGE}${inner}`, policy, `plaited-spawn-${process.pid}-${++sequence}`);
  } catch (error) {
    await group?.dispose();
    throw error;
  }
  if (group) line = `${group.joinCommand} || exit 125\n${line}`;

  const tag = newProcessTag();
  const child = spawn('bash', ['-c', dieWithAgent(line)], {
    cwd: options.cwd,
    env: { ...toolEnvironment(process.env, { explicit: options.env }), [PROCESS_TAG_ENV]: tag },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const ledger = processLedger();
  if (child.pid !== undefined) ledger?.record(child.pid, tag);
  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // ESRCH: gone already.
    }
    if (signal === 'SIGKILL') killTaggedProcesses(tag);
  };

  let ended = false;
  let exit: { code: number | null; signal: string | null; error?: string } = { code: null, signal: null };
  const finish = () => {
    if (ended) return;
    ended = true;
    if (child.pid !== undefined) ledger?.forget(child.pid);
    killGroup('SIGKILL');
    void Promise.all([group?.dispose(), releaseCommand()]).finally(() => handlers.onExit(exit.code, exit.signal, exit.error));
  };
  child.stdout.on('data', handlers.onStdout);
  child.stderr.on('data', handlers.onStderr);
  // A server that stops reading makes our writes fail (EPIPE): its exit says the rest.
  child.stdin.on('error', () => undefined);
  child.on('error', (error) => {
    if (child.pid !== undefined) return;
    exit = { code: null, signal: null, error: error.message };
    finish();
  });
  child.once('exit', (code, signal) => {
    exit = { code, signal };
    setTimeout(() => {
      child.stdout.destroy();
      child.stderr.destroy();
      finish();
    }, DRAIN_AFTER_EXIT_MS).unref();
  });
  child.once('close', finish);

  const kill = () => {
    if (ended) return;
    killGroup('SIGTERM');
    setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref();
  };
  return {
    write(chunk) {
      if (ended || !child.stdin.writable) return true;
      if (child.stdin.writableLength + chunk.length > MAX_PENDING_INPUT) {
        kill();
        return false;
      }
      child.stdin.write(chunk);
      return true;
    },
    pauseOutput() {
      child.stdout.pause();
      child.stderr.pause();
    },
    resumeOutput() {
      child.stdout.resume();
      child.stderr.resume();
    },
    kill,
  };
}
