import { tmpdir } from 'node:os';
import { SandboxManager, type SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { DANGEROUS_DIRECTORIES, DANGEROUS_FILES } from '@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js';
import { bridgeSocatPath } from './bridge-socat.js';
import { holdPlaceholders } from '../../tools/protected-placeholders.js';
import { RESTORE_STDERR, retryBwrapStart } from '../../tools/retry-bwrap-start.js';
import { outsideProjectCwd, removeStaleNeutralDirs } from './library-cwd.js';
import { listQuietly, removeStaleMuxSockets } from './stale-mux-sockets.js';
import { toSandboxRuntimeConfig, type SandboxPolicy } from './sandbox-policy.js';
import { ensureFolder } from '../../storage/ensure-folder.js';

/**
 * The one `SandboxManager` of this process, behind a small surface. The
 * library keeps its proxies and mount bookkeeping in module state, so this file
 * is the only place that touches it: it initializes once, keeps the network
 * allow list in step with the latest policy (the proxy reads it per request),
 * and releases per-command mount points only when no sandboxed command is still
 * running (releasing them early would unmount a live sandbox's protections).
 */

/**
 * The library keeps a built-in list of dotfiles (`.bashrc`, `.mcp.json`, `.vscode`, …)
 * read-only in the process's cwd, and makes the missing ones uncreatable by having
 * bubblewrap create empty mount-point files for them in the user's project, which stay
 * there for good when the agent is killed. Our own list (src/tools/protected-paths.ts,
 * applied through the policy's `denyWrite`) protects the ones that exist, in the
 * session's project rather than the process's cwd, and keeps its placeholders inside
 * `.plaited/`; so the library's list is emptied (its arrays are read at each wrap).
 */
function disableBuiltInDotfileStubs(): void {
  (DANGEROUS_FILES as unknown as string[]).length = 0;
  (DANGEROUS_DIRECTORIES as unknown as string[]).length = 0;
}

/**
 * The library resets itself on the first SIGINT or SIGTERM (proxies and bridges killed at once).
 * A SIGTERM drains a network face: running turns finish first, and in the whole-agent sandbox
 * their model calls go through those proxies, so each was cut mid-reply. The handlers it adds
 * while initializing are taken off; this process resets the runtime once its agent has stopped
 * (resetSandboxRuntime), and at exit the library's own exit hook still runs.
 */
async function withoutSignalCleanup<T>(initialize: () => Promise<T>): Promise<T> {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  try {
    return await initialize();
  } finally {
    for (const signal of signals) {
      for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
}

let initialized: Promise<void> | undefined;
let currentNetworkKey = '';
let running = 0;
/** Placeholders held for the sandboxes that run: released with the mount points, when none is left. */
let heldPlaceholders: Array<() => Promise<void>> = [];

async function ensureSandboxRuntime(policyConfig: SandboxRuntimeConfig): Promise<void> {
  // The bridges die with this process even when it is killed with SIGKILL (bridge-socat.ts).
  const socatPath = bridgeSocatPath();
  const config: SandboxRuntimeConfig = socatPath ? { ...policyConfig, socatPath } : policyConfig;
  const key = JSON.stringify(config.network);
  if (!initialized) {
    disableBuiltInDotfileStubs();
    currentNetworkKey = key;
    // The sandbox points TMPDIR at /tmp/claude but only mounts it writable when it exists.
    ensureFolder('/tmp/claude');
    // What a killed agent's runtime left in $TMPDIR goes before this one starts its own (one listing: it may be long).
    const names = listQuietly(tmpdir());
    removeStaleNeutralDirs(tmpdir(), names);
    initialized = removeStaleMuxSockets(tmpdir(), names)
      .then(() => withoutSignalCleanup(() => SandboxManager.initialize(config)))
      .catch((error: unknown) => {
        initialized = undefined;
        throw error;
      });
  }
  await initialized;
  if (key !== currentNetworkKey) {
    currentNetworkKey = key;
    SandboxManager.updateConfig(config);
  }
}

/**
 * Wraps a shell command line; the result is itself a shell command line (run it with `sh -c`).
 * Its start is tried again when it lost a race with a rename of a file bound read-only
 * (src/tools/retry-bwrap-start.ts): the library's line is one bwrap call, its first word.
 */
export async function wrapShellCommand(command: string, policy: SandboxPolicy, commandId: string): Promise<string> {
  await ensureSandboxRuntime(toSandboxRuntimeConfig(policy));
  running++;
  const held = await holdPlaceholders(policy.placeholders);
  heldPlaceholders.push(held.release);
  const config = toSandboxRuntimeConfig(policy, held.paths);
  try {
    const line = await outsideProjectCwd(() => SandboxManager.wrapWithSandbox(`${RESTORE_STDERR}${command}`, undefined, config, undefined, { commandId }));
    // Another shape (not the library version this is pinned to) starts once, as before: fd 8 is stderr.
    return line.startsWith('bwrap ') ? retryBwrapStart('bwrap', line.slice('bwrap '.length)) : `exec 8>&2 9>/dev/null\n${line}`;
  } catch (error) {
    // A wrap that threw has released what it held.
    await releaseCommand();
    throw error;
  }
}

/** Call once per successful `wrapShellCommand`, after the command has exited (placeholders go when none runs). */
export async function releaseCommand(): Promise<void> {
  running = Math.max(0, running - 1);
  if (running > 0) return;
  SandboxManager.cleanupAfterCommand();
  const releases = heldPlaceholders;
  heldPlaceholders = [];
  await Promise.all(releases.map((release) => release()));
}

/** The proxy's denials for one command, as `deny network-outbound host:port (why)` lines. */
export function networkDenials(commandId: string): string[] {
  return SandboxManager.getSandboxViolationStore()
    .getViolationsForCommand(commandId)
    .map((violation) => violation.line)
    .filter((line) => line.includes('network-outbound'));
}

/** Stops the proxies (tests and shutdown). */
export async function resetSandboxRuntime(): Promise<void> {
  if (!initialized) return;
  await initialized.catch(() => undefined);
  initialized = undefined;
  currentNetworkKey = '';
  await SandboxManager.reset();
}
