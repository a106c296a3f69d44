import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { PlaitedConfig, SandboxConfig } from '../../config/schema.js';
import { userConfigDir } from '../../config/user-config-dir.js';
import { protectedMounts, type PlaceholderSpec } from '../../tools/protected-mounts.js';
import { isWithin } from '../../tools/workspace-path.js';
import { hasGlob } from './path-match.js';
import { parseMemoryLimit } from './resource-limits.js';

/**
 * The resolved sandbox policy: every path absolute, every default applied, the
 * model host allowed. One policy describes both the whole-agent wrapper and the
 * per-command sandbox, so a bash call and the agent around it see the same walls.
 */
export interface SandboxPolicy {
  /** The directory relative paths were resolved against (the session cwd). */
  cwd: string;
  /** The home directory `~` was expanded to. */
  home: string;
  /** Absolute paths writable inside the sandbox (everything else is read-only). */
  allowWrite: string[];
  /** Absolute paths (or glob patterns) hidden from reads. */
  denyRead: string[];
  /** Absolute paths kept read-only even inside `allowWrite` (denied reads, protected start-up files). */
  denyWrite: string[];
  /**
   * Missing protected names in writable places: held by placeholders while a sandbox
   * runs, then read-only like `denyWrite` (src/tools/protected-placeholders.ts).
   */
  placeholders: PlaceholderSpec[];
  /** Hosts reachable through the sandbox's proxy (`host` or `host:port`). */
  allowedDomains: string[];
  limits: ResolvedLimits;
}

export interface ResolvedLimits {
  /** Address-space limit per process, in bytes; `null` for none. */
  memoryBytes: number | null;
  /** Wall clock per command, in milliseconds; `null` leaves it to the caller's timeout. */
  timeoutMs: number | null;
  /** Processes (tasks) the sandboxed tree may hold at once; `null` for none. */
  processes: number | null;
}

export interface CreateSandboxPolicyOptions {
  config: SandboxConfig;
  /** The session cwd: relative paths resolve against it. */
  cwd: string;
  /** The model endpoint (`agent.baseURL`); its host is allowed when present. */
  modelBaseUrl?: string;
  /** The user allows edits (permission mode `accept-edits`): the cwd becomes writable. */
  allowEdits?: boolean;
  /**
   * The session's other workspace roots (ACP `additionalDirectories`): part of the
   * workspace, so writable exactly when the cwd is, with the same protected paths.
   */
  additionalRoots?: readonly string[];
  /** Extra writable paths the caller needs (the agent's state database folder). */
  extraWrite?: string[];
  /** Overrides the home directory (tests use a fake HOME). */
  home?: string;
  /** Compute the protected mount set (default); off for callers that need only the paths. */
  protectedSet?: boolean;
}

/** Secret files no config can make readable by forgetting them: always denied. */
export const ALWAYS_DENIED_READS = ['~/.ssh', '~/.aws', '~/.gnupg', '~/.netrc', '~/.docker/config.json', '~/.kube', '.env', '.env.*'];

/** Process count applied when the config names none: enough for builds, far below a fork bomb. */
export const DEFAULT_PROCESS_LIMIT = 512;
/** Address space applied when the config names none; Node alone reserves about 1 GB of it. */
export const DEFAULT_MEMORY_BYTES = 4 * 1024 ** 3;

export function createSandboxPolicy(options: CreateSandboxPolicyOptions): SandboxPolicy {
  const home = options.home ?? process.env.HOME ?? homedir();
  const cwd = resolve(options.cwd);
  const expand = (path: string): string => expandPath(path, { cwd, home });
  const { security, limits } = options.config;

  const roots = [cwd, ...(options.additionalRoots ?? []).map((root) => resolve(root))];
  const allowWrite = unique([
    ...security.allowWrite.map(expand),
    ...(options.allowEdits ? roots : []),
    ...(options.extraWrite ?? []).map(expand),
  ]);
  const denyRead = unique([...security.denyRead, ...ALWAYS_DENIED_READS].map(expand));
  // A denied read must not be writable either: writing ~/.ssh/authorized_keys is the classic escape.
  // Only paths that exist: bubblewrap denies a missing path by creating a mount point file for it on the host.
  // And what runs or grants permissions at start (config, hooks: src/tools/protected-paths.ts) stays
  // read-only whatever was approved, or one approval would outlive the sandbox.
  // The user's own plaited folder (trust decisions, permission rules, transpiled configs) likewise.
  const writable = (path: string) => allowWrite.some((allowed) => isWithin(path, allowed));
  const mounts = options.protectedSet === false ? null : protectedMounts(roots, { extraReadOnly: [userConfigDir({ ...process.env, HOME: home })], home, maxAgeMs: 0, wholeGitDirs: options.config.security.readOnlyGit });
  const denyWrite = unique([...denyRead.filter((path) => !hasGlob(path) && existsSync(path)), ...(mounts?.readOnly ?? [])]);
  // Outside a writable path bubblewrap's read-only root holds a missing name already: no placeholder there.
  const placeholders = (mounts?.placeholders ?? []).filter((spec) => writable(spec.path));
  const allowedDomains = unique([...security.allowedDomains, ...modelHostEntries(options.modelBaseUrl)]);

  return {
    cwd,
    home,
    allowWrite,
    denyRead,
    denyWrite,
    placeholders,
    allowedDomains,
    limits: {
      memoryBytes: limits.memory === undefined ? DEFAULT_MEMORY_BYTES : parseMemoryLimit(limits.memory),
      timeoutMs: limits.timeoutMs ?? null,
      processes: limits.processes ?? DEFAULT_PROCESS_LIMIT,
    },
  };
}

/**
 * The `@anthropic-ai/sandbox-runtime` config for a policy, with the placeholders that
 * are held now. Only existing paths are denied writes: for a missing one the library
 * would leave a mount-point file in the user's tree.
 */
export function toSandboxRuntimeConfig(policy: SandboxPolicy, heldPlaceholders: readonly string[] = []): SandboxLibraryConfig {
  const denyWrite = unique([...policy.denyWrite, ...heldPlaceholders]).filter((path) => existsSync(path));
  return {
    network: { allowedDomains: policy.allowedDomains, deniedDomains: [] },
    filesystem: { denyRead: policy.denyRead, allowWrite: policy.allowWrite, denyWrite },
  };
}

/**
 * What `@anthropic-ai/sandbox-runtime` takes (its `SandboxRuntimeConfig`, structurally). Spelled
 * here so that the public declarations (errors that carry a policy) need none of the library's
 * types: they reach `@types/node-forge`, which a library user does not have.
 */
export interface SandboxLibraryConfig {
  network: { allowedDomains: string[]; deniedDomains: string[] };
  filesystem: { denyRead: string[]; allowWrite: string[]; denyWrite: string[] };
}

/** `~` → home, relative → against cwd; globs keep their pattern characters. */
export function expandPath(path: string, base: { cwd: string; home: string }): string {
  if (path === '~') return base.home;
  if (path.startsWith('~/')) return join(base.home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(base.cwd, path);
}

/**
 * The allow-list entries for a model endpoint. The sandbox's proxy refuses any
 * name that resolves to loopback unless the IP literal itself is listed, so a
 * local endpoint (`http://127.0.0.1:8080/v1`, `http://localhost:11434`) is
 * allowed as the literal with its port: exactly that service, nothing else on
 * the host's loopback.
 */
export function modelHostEntries(baseUrl: string | undefined): string[] {
  if (!baseUrl) return [];
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return [];
  }
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const host = url.hostname;
  if (host === 'localhost' || host.endsWith('.localhost')) return [`${host}:${port}`, `127.0.0.1:${port}`];
  if (host.startsWith('[')) return [`${host}:${port}`];
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return [`${host}:${port}`];
  return [host];
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/**
 * The policy for a whole config: the `adapters.sandbox` section, the model
 * endpoint from `agent.baseURL`, edits allowed when the default mode accepts them.
 * What the MCP registry and the CLI call.
 */
export function sandboxPolicyFromConfig(
  config: PlaitedConfig,
  cwd: string,
  extra: { extraWrite?: string[]; home?: string; allowEdits?: boolean; additionalRoots?: readonly string[] } = {},
): SandboxPolicy {
  return createSandboxPolicy({
    config: config.adapters.sandbox,
    cwd,
    modelBaseUrl: config.agent.baseURL,
    ...extra,
    allowEdits: extra.allowEdits ?? config.agent.defaultMode === 'accept-edits',
  });
}
