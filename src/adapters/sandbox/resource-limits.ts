import { SandboxConfigError } from './sandbox-config-error.js';
import type { ResolvedLimits } from './sandbox-policy.js';

/**
 * Resource limits for a sandboxed command, applied with shell `ulimit` inside
 * the sandbox (so they bind the command and everything it starts, and nothing
 * of the agent):
 *
 * - memory: `ulimit -v` (RLIMIT_AS), per process. A process that grows past it
 *   gets ENOMEM and dies with its own "out of memory" message.
 * - processes: `ulimit -u` (RLIMIT_NPROC). bubblewrap gives the command its own
 *   user namespace, and since Linux 5.14 the count is kept per namespace, so the
 *   limit counts the sandbox's processes only. The kernel exempts uid 0 from
 *   RLIMIT_NPROC, so when the agent runs as root a pids cgroup does the job
 *   instead (see process-limit-group.ts).
 */

const UNITS: Record<string, number> = { '': 1, B: 1, K: 1024, KB: 1024, M: 1024 ** 2, MB: 1024 ** 2, G: 1024 ** 3, GB: 1024 ** 3 };

/** `512M`, `2G`, `1048576` → bytes. */
export function parseMemoryLimit(value: number | string): number {
  if (typeof value === 'number') return value;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([KMG]?B?)\s*$/i.exec(value);
  if (!match) {
    throw new SandboxConfigError(`adapters.sandbox.limits.memory: expected bytes or a size like "512M", got "${value}"`);
  }
  const bytes = Math.floor(Number(match[1]) * UNITS[match[2].toUpperCase()]);
  if (bytes <= 0) throw new SandboxConfigError(`adapters.sandbox.limits.memory: must be positive, got "${value}"`);
  return bytes;
}

/** `268435456` → `256 MB`, for error messages. */
export function formatBytes(bytes: number): string {
  if (bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MB`;
  return `${Math.round(bytes / 1024)} KB`;
}

/**
 * The shell commands that set the limits, to run before the user's command in
 * the same shell. `ulimit -u` is left out when a cgroup counts processes (as
 * root it would do nothing, and it would mislead whoever reads the command).
 */
export function limitsShellPrefix(limits: ResolvedLimits, options: { processLimitInShell: boolean }): string {
  const parts: string[] = [];
  if (limits.memoryBytes !== null) parts.push(`ulimit -v ${Math.max(1, Math.floor(limits.memoryBytes / 1024))}`);
  if (limits.processes !== null && options.processLimitInShell) parts.push(`ulimit -u ${limits.processes}`);
  return parts.join(' && ');
}

/** The effective timeout: the tighter of the caller's and the policy's. */
export function effectiveTimeout(callerMs: number | undefined, limits: ResolvedLimits): number | undefined {
  if (limits.timeoutMs === null) return callerMs;
  if (callerMs === undefined) return limits.timeoutMs;
  return Math.min(callerMs, limits.timeoutMs);
}
