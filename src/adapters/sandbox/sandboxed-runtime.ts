import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ExecOptions, ExecResult, Runtime } from '../../contracts/runtime.js';
import type { TextWindowOptions } from '../../tools/text-window.js';
import { followLinks, matchesAnyPath } from './path-match.js';
import { explainSandboxFailure, networkFinding } from './explain-sandbox-failure.js';
import { createProcessLimitGroup, type ProcessLimitGroup } from './process-limit-group.js';
import { effectiveTimeout, limitsShellPrefix } from './resource-limits.js';
import type { SandboxPolicy } from './sandbox-policy.js';
import { dieWithAgent } from '../../tools/die-with-agent.js';
import { networkDenials, releaseCommand, wrapShellCommand } from './sandbox-runtime-host.js';
import { SandboxViolationError } from './sandbox-violation-error.js';
import { brokerClient } from './broker-client.js';
import { secretsToUnset } from '../../tools/secret-env.js';
import { isProtectedPath } from '../../tools/protected-paths.js';
import { shellQuote } from '../../tools/shell-quote.js';

/**
 * How commands are isolated:
 * - `isolated`: each command runs under bubblewrap with the policy's walls and
 *   network proxy, plus the limits (per-command mode, `adapters.sandbox.commands`).
 * - `limits-only`: the whole agent already runs inside the sandbox (the
 *   `PLAITED_SANDBOXED` child), so commands inherit its walls; only the limits
 *   and the violation reporting are added here.
 * - `brokered`: inside the whole-agent sandbox with the launcher's command broker
 *   (command-broker.ts): the launcher runs each local command in a sandbox of its
 *   own (the same walls, the agent's state hidden, a pid namespace of its own) and
 *   applies the limits there.
 */
export type SandboxedRuntimeMode = 'isolated' | 'limits-only' | 'brokered';

export interface SandboxedRuntimeOptions {
  /** Default inside the whole-agent sandbox (`PLAITED_SANDBOXED=1`): `brokered` for local commands when the launcher handed a broker, else `limits-only`; outside it `isolated`. */
  mode?: SandboxedRuntimeMode;
}

/** The environment marker the whole-agent wrapper sets on the sandboxed child. */
export const SANDBOXED_ENV = 'PLAITED_SANDBOXED';

/** Whether this process is the agent that the whole-agent wrapper runs inside the sandbox. */
export function insideSandbox(): boolean {
  return process.env[SANDBOXED_ENV] === '1';
}

let commandSequence = 0;

/**
 * The sandbox starts its proxy bridges (socat on 3128 and 1080) in the
 * background and runs the command at once; a command that connects in the
 * first milliseconds would find nothing listening and fail as if the network
 * were down. Wait (up to ~0.5 s, usually one try) until the bridge answers.
 */
export const WAIT_FOR_PROXY_BRIDGE =
  'for _plaited_try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; do (exec 9<>/dev/tcp/127.0.0.1/3128) 2>/dev/null && break; sleep 0.02; done; unset _plaited_try\n';

/**
 * A Runtime whose commands run under the sandbox policy. Every `exec` that the
 * policy or a limit stopped throws a `SandboxViolationError` naming why (the
 * tool loop reports a thrown tool error to the model and the client); any
 * other result comes back unchanged. File reads and writes go to `inner`, but
 * never to a protected path: a file tool is no way around the sandbox.
 */
export function createSandboxedRuntime(inner: Runtime, policy: SandboxPolicy, options: SandboxedRuntimeOptions = {}): Runtime {
  if (inner.kind === 'sandbox') return inner;
  const broker = insideSandbox() && runsCommandsHere(inner) ? brokerClient() : null;
  const mode = options.mode ?? (insideSandbox() ? (broker ? 'brokered' : 'limits-only') : 'isolated');
  const isRoot = process.geteuid?.() === 0;

  async function exec(command: string, execOptions: ExecOptions = {}): Promise<ExecResult> {
    const cwd = execOptions.cwd ?? inner.cwd;
    if (mode === 'brokered' && broker) {
      const { result, findings } = await broker.exec(command, { ...execOptions, cwd: resolve(inner.cwd, cwd) });
      if (findings && findings.length > 0) throw new SandboxViolationError({ findings, result });
      return result;
    }
    const commandId = `plaited-${process.pid}-${++commandSequence}`;
    const timeoutMs = effectiveTimeout(execOptions.timeoutMs, policy.limits);
    const group: ProcessLimitGroup | null = isRoot && policy.limits.processes !== null ? createProcessLimitGroup(policy.limits.processes) : null;
    const prefix = limitsShellPrefix(policy.limits, { processLimitInShell: !isRoot });
    // The proxy is the only way out, and it is the one that knows the allow
    // list; NO_PROXY would send loopback requests around it into an empty
    // network namespace. So when a loopback service is allowed, nothing bypasses it.
    const proxyPrefix = proxyBypassPrefix(policy);
    const secrets = secretsToUnset(process.env, { passthrough: execOptions.passEnv, explicit: execOptions.env });
    const unsetSecrets = secrets.length > 0 ? `unset ${secrets.join(' ')}; ` : '';
    const limited = `${prefix ? `${prefix} || exit 125\n` : ''}${unsetSecrets}${proxyPrefix}${command}`;

    let line: string;
    let wrapped = false;
    try {
      if (mode === 'isolated') {
        line = await wrapShellCommand(`${WAIT_FOR_PROXY_BRIDGE}${limited}`, policy, commandId);
        wrapped = true;
      } else {
        line = `exec bash -c ${shellQuote(limited)}`;
      }
      if (group) line = `${group.joinCommand} || exit 125\n${line}`;
      // Inside the whole-agent sandbox (not wrapped) the walls already die with the agent.
      if (wrapped) line = dieWithAgent(line);
    } catch (error) {
      await group?.dispose();
      throw error;
    }

    let result: ExecResult;
    let forkRefusals = 0;
    try {
      result = await inner.exec(line, { ...execOptions, cwd, timeoutMs, isolated: true });
    } finally {
      forkRefusals = group?.forkRefusals() ?? 0;
      await group?.dispose();
      if (wrapped) await releaseCommand();
    }

    const findings = explainSandboxFailure({
      output: result.output,
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      cwd,
      policy,
      networkDenials: mode === 'isolated' ? networkDenials(commandId) : [],
      // Only the policy's own wall clock is a sandbox limit; the caller's timeout is the caller's to report.
      timeoutMs: policy.limits.timeoutMs !== null && timeoutMs === policy.limits.timeoutMs ? timeoutMs : undefined,
    });
    if (forkRefusals > 0 && !findings.some((finding) => finding.kind === 'processes')) {
      findings.unshift({ kind: 'processes', message: `killed: process limit ${policy.limits.processes} exceeded (${forkRefusals} forks refused)` });
    }
    if (proxyBlocked(result.output) && !findings.some((finding) => finding.kind === 'network')) {
      findings.unshift(networkFinding(hostInCommand(command), policy));
    }
    if (findings.length > 0) throw new SandboxViolationError({ findings, result });
    return result;
  }

  function guard(path: string, access: 'read' | 'write'): void {
    const absolute = resolve(inner.cwd, path);
    const denied = [...policy.denyRead, ...(access === 'write' ? policy.denyWrite : [])];
    // The path as named and where it really leads: a link to a protected file is no way around the walls.
    // A write to a start-up file (config, hooks) is refused even when the user approved it.
    if (matchesAnyPath(absolute, denied) || matchesAnyPath(realPath(absolute), denied) || (access === 'write' && isProtectedPath(absolute, inner.cwd))) {
      throw new SandboxViolationError({ findings: [{ kind: access, message: `blocked by sandbox: ${access === 'read' ? 'read of' : 'write to'} ${path} (a protected path)` }] });
    }
  }

  return {
    get cwd() {
      return inner.cwd;
    },
    kind: 'sandbox',
    exec,
    async readFile(path, readOptions) {
      guard(path, 'read');
      return inner.readFile(path, readOptions);
    },
    ...(inner.readTextWindow
      ? {
          readTextWindow: async (path: string, windowOptions: TextWindowOptions) => {
            guard(path, 'read');
            return inner.readTextWindow!(path, windowOptions);
          },
        }
      : {}),
    async writeFile(path, content, writeOptions) {
      guard(path, 'write');
      return inner.writeFile(path, content, writeOptions);
    },
  };
}

/** The file a path resolves to; for a path that does not exist yet, where a write through its links would land. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return followLinks(path);
  }
}

/**
 * Whether a runtime runs its commands in this process's own shell: the local one, and an ACP
 * client's that edits files but has no terminal (it falls back to the local shell for
 * commands). Those go to the broker in whole-agent mode; a client's terminal runs elsewhere.
 */
function runsCommandsHere(runtime: Runtime): boolean {
  return runtime.kind.split('+').every((part) => part === 'local' || part === 'acp-fs');
}

/** Unsets NO_PROXY when a loopback service is allowed: the proxy, which knows the allow list, must see those requests too. */
export function proxyBypassPrefix(policy: SandboxPolicy): string {
  return policy.allowedDomains.some(isLoopbackEntry) ? 'unset NO_PROXY no_proxy; ' : '';
}

function isLoopbackEntry(entry: string): boolean {
  return /^(127\.|localhost|\[::1\])/.test(entry);
}

/** What an HTTP client prints when the sandbox proxy refused it (the proxy's 403 body, curl's CONNECT failure). */
function proxyBlocked(output: string): boolean {
  return /Connection blocked by network allowlist|blocked-by-sandbox-runtime|CONNECT tunnel failed, response 403/.test(output);
}

/** The host of the first URL in a command line (what a proxy refusal was most likely about). */
function hostInCommand(command: string): string {
  return /\b(?:https?|wss?|ftp):\/\/([^/\s'"?#]+)/i.exec(command)?.[1] ?? 'that host';
}
