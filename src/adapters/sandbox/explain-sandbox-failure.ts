import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { followLinks, matchesAnyPath } from './path-match.js';
import { formatBytes } from './resource-limits.js';
import type { SandboxPolicy } from './sandbox-policy.js';

/**
 * Turns what a sandboxed command left behind (its exit, its output, the proxy's
 * denials) into sentences a user can act on: "blocked by sandbox: write to
 * /etc/passwd". bubblewrap reports nothing itself; a blocked write is just
 * EROFS, a hidden secret just ENOENT or EACCES, a refused connection just
 * ECONNREFUSED. So each line is matched against those errors and the path or
 * host it names is checked against the policy: only what the policy explains
 * is reported, so an ordinary missing file stays an ordinary error.
 */

export type SandboxFindingKind = 'read' | 'write' | 'network' | 'memory' | 'processes' | 'timeout';

export interface SandboxFinding {
  kind: SandboxFindingKind;
  message: string;
}

export interface ExplainInput {
  output: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** The working directory the command ran in (relative paths in errors resolve against it). */
  cwd: string;
  policy: SandboxPolicy;
  /** `deny network-outbound host:port (why)` lines the sandbox proxy recorded for this command. */
  networkDenials: string[];
  /** The policy's wall-clock limit, when it is what applied; a timeout is reported only then. */
  timeoutMs?: number;
}

const WRITE_ERRORS = /read-only file system|EROFS/i;
const ACCESS_ERRORS = /permission denied|EACCES|operation not permitted|EPERM/i;
const MISSING_ERRORS = /no such file or directory|ENOENT/i;
const MEMORY_ERRORS = /memory exhausted|out of memory|cannot allocate memory|ENOMEM|std::bad_alloc|MemoryError|heap out of memory|Failed to reserve virtual memory|allocation failed|\bOOM\b/i;
const FORK_ERRORS = /fork: (?:retry: )?resource temporarily unavailable|Cannot fork|fork failed|EAGAIN.*spawn|spawn.*EAGAIN|can't fork/i;
/** Ports the sandbox's own proxy bridges listen on inside the sandbox. */
const PROXY_PORTS = new Set(['3128', '1080']);

export function explainSandboxFailure(input: ExplainInput): SandboxFinding[] {
  const findings: SandboxFinding[] = [];
  const add = (finding: SandboxFinding): void => {
    if (!findings.some((existing) => existing.message === finding.message)) findings.push(finding);
  };

  for (const line of input.networkDenials) {
    const match = /deny network-outbound (\S+)/.exec(line);
    if (match) add(networkFinding(displayHost(match[1]), input.policy));
  }

  const failed = input.exitCode !== 0 || input.signal !== null || input.timedOut;
  for (const line of input.output.split('\n')) {
    for (const host of unreachableHosts(line)) add(networkFinding(displayHost(host), input.policy));
    if (!failed) continue;
    const fileFinding = explainFileLine(line, input);
    if (fileFinding) add(fileFinding);
  }

  const { limits } = input.policy;
  if (failed && limits.memoryBytes !== null && MEMORY_ERRORS.test(input.output)) {
    add({ kind: 'memory', message: `killed: memory limit ${formatBytes(limits.memoryBytes)} exceeded` });
  }
  if (limits.processes !== null && FORK_ERRORS.test(input.output)) {
    add({ kind: 'processes', message: `killed: process limit ${limits.processes} exceeded (fork refused)` });
  }
  if (input.timedOut && input.timeoutMs !== undefined) {
    add({ kind: 'timeout', message: `killed: wall-clock limit ${Math.round(input.timeoutMs / 100) / 10}s exceeded` });
  }
  return findings;
}

/** The finding for a host the policy keeps out, naming what it allows. */
export function networkFinding(host: string, policy: SandboxPolicy): SandboxFinding {
  const allowed = policy.allowedDomains.length === 0 ? 'no hosts are allowed' : `allowed: ${policy.allowedDomains.join(', ')}`;
  return { kind: 'network', message: `blocked by sandbox: network access to ${host} is not allowed (${allowed})` };
}

/** `host:port` as a user would name it: the default web ports dropped. */
function displayHost(target: string): string {
  return target.replace(/:(80|443)$/, '');
}

/** The ways an empty network namespace says a host could not be reached, and how to name the host. */
const UNREACHABLE: Array<[RegExp, (m: RegExpExecArray) => string | null]> = [
  [/getaddrinfo (?:EAI_AGAIN|ENOTFOUND) ([^\s'",)]+)/, (m) => m[1]],
  [/Could not resolve (?:host|proxy): ([^\s'",)]+)/i, (m) => m[1]],
  [/(?:ECONNREFUSED|ENETUNREACH|EHOSTUNREACH) \[?([0-9a-f.:]+?)\]?:(\d+)/i, (m) => loopbackOrIp(m[1], m[2])],
  [/Failed to connect to ([^\s]+) port (\d+)/i, (m) => loopbackOrIp(m[1], m[2])],
  [/\/dev\/(?:tcp|udp)\/([^/\s]+)\/(\d+): (?:Connection refused|Network is unreachable)/, (m) => loopbackOrIp(m[1], m[2])],
  [/connect to ([^\s]+) port (\d+).*(?:Connection refused|Network is unreachable)/i, (m) => loopbackOrIp(m[1], m[2])],
];

/** Hosts a line says could not be reached (the patterns are built once, not per output line). */
function unreachableHosts(line: string): string[] {
  const hosts: string[] = [];
  for (const [pattern, pick] of UNREACHABLE) {
    const match = pattern.exec(line);
    const host = match ? pick(match) : null;
    if (host) hosts.push(host);
  }
  return hosts;
}

/** Inside the sandbox only the proxy bridges listen; any other refused connection was the sandbox's doing. */
function loopbackOrIp(host: string, port: string): string | null {
  if (PROXY_PORTS.has(port) && (host === 'localhost' || host.startsWith('127.'))) return null;
  return `${host}:${port}`;
}

function explainFileLine(line: string, input: ExplainInput): SandboxFinding | null {
  const isWrite = WRITE_ERRORS.test(line);
  const isAccess = ACCESS_ERRORS.test(line);
  const isMissing = MISSING_ERRORS.test(line);
  if (!isWrite && !isAccess && !isMissing) return null;
  for (const candidate of pathCandidates(line)) {
    const written = isAbsolute(candidate) ? resolve(candidate) : resolve(input.cwd, candidate);
    const real = followLinks(written);
    const shown = real === written ? candidate : `${candidate} (a link to ${real})`;
    if ((isAccess || isMissing) && matchesAnyPath(real, input.policy.denyRead)) {
      return { kind: 'read', message: `blocked by sandbox: read of ${shown} (a protected path)` };
    }
    if (isAccess && !isWrite && readRefused(line, real)) {
      return { kind: 'read', message: `read of ${shown} refused: permission denied` };
    }
    if ((isWrite || isAccess) && !isWritable(real, input.policy)) {
      const where = input.policy.allowWrite.length === 0 ? 'nothing is writable' : `writable: ${input.policy.allowWrite.join(', ')}`;
      return { kind: 'write', message: `blocked by sandbox: write to ${shown} (outside the writable paths; ${where})` };
    }
  }
  return null;
}

/** What a failed write says it was doing (a bare `bash: f: Permission denied` says nothing). */
const WRITE_VERBS = /cannot (?:create|touch|remove|make|move|overwrite)|can't create|for writing|mkdir|rmdir|unlink|rename|symlink|copyfile|chmod|chown/i;

/**
 * Whether a "permission denied" was a read: outside the writable paths a write fails with
 * EROFS (the sandbox mounts them read-only), so EACCES on a file that exists, or on anything
 * under `/proc` (another process's `environ`; its pids are another namespace's), was a read
 * or an open for reading, unless the line names a writing operation.
 */
function readRefused(line: string, path: string): boolean {
  if (WRITE_VERBS.test(line)) return false;
  return path === '/proc' || path.startsWith('/proc/') || existsSync(path);
}

/** Paths an error line names: quoted ones first, then the field before "<path>: <error>". */
function pathCandidates(line: string): string[] {
  const candidates: string[] = [];
  for (const match of line.matchAll(/['"`‘]([^'"`’]+)['"`’]/g)) candidates.push(match[1]);
  const fields = line.split(': ');
  for (let index = 1; index < fields.length; index++) {
    if (/^(read-only file system|permission denied|operation not permitted|no such file or directory)/i.test(fields[index])) {
      candidates.push(fields[index - 1].replace(/^.*?(?:cannot (?:create|open|touch|access) |can't create )/i, ''));
    }
  }
  return candidates
    .map((value) => value.trim())
    .filter((value) => /^[~/.]/.test(value) || (value.length > 0 && !/\s/.test(value) && !/^(E[A-Z]+|error)$/i.test(value)));
}

function isWritable(path: string, policy: SandboxPolicy): boolean {
  return matchesAnyPath(path, policy.allowWrite) && !matchesAnyPath(path, policy.denyWrite);
}
