import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import type { SandboxConfig } from '../../config/schema.js';
import { canLimitProcessesWithCgroup } from './process-limit-group.js';
import { SandboxUnavailableError } from './sandbox-unavailable-error.js';

/** What this machine can isolate, and what to do about what it cannot. */
export interface SandboxAvailability {
  available: boolean;
  /** Why isolation is unavailable (set when `available` is false). */
  reason?: string;
  /** How to make it available (set when `available` is false). */
  fix?: string;
  /** Isolation works but something is weaker than configured. */
  warnings: string[];
  /** Whether a process limit can be enforced (false as root without a pids cgroup). */
  processLimit: boolean;
}

const INSTALL_FIX =
  'install the sandbox dependencies: `apt-get install bubblewrap socat ripgrep` (Debian/Ubuntu) or `dnf install bubblewrap socat ripgrep` (Fedora)';
const USERNS_FIX =
  'enable unprivileged user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` (Debian), `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 24.04+), or run the container with --privileged / a seccomp profile that allows unshare';

let cached: Promise<SandboxAvailability> | undefined;

/** The default sink for sandbox warnings: stderr (stdout belongs to the protocol). */
export function warnOnStderr(message: string): void {
  process.stderr.write(`plaited-agent: ${message}\n`);
}

/** Probes once per process: bubblewrap, socat, and a real user namespace. */
export function checkSandboxAvailability(options: { fresh?: boolean } = {}): Promise<SandboxAvailability> {
  if (!cached || options.fresh) cached = probe();
  return cached;
}

async function probe(): Promise<SandboxAvailability> {
  if (process.platform !== 'linux') {
    return unavailable(`the sandbox adapter supports Linux only (this is ${process.platform})`, 'run the agent on Linux, or in a Linux container');
  }
  const longTmpdir = tmpdirTooLong(tmpdir());
  if (longTmpdir) return unavailable(longTmpdir, 'set TMPDIR to a shorter folder (such as /tmp) for the agent');
  const dependencies = SandboxManager.checkDependencies();
  if (dependencies.errors.length > 0) {
    const missing = dependencies.errors.join('; ');
    const fix = /not installed|not executable/.test(missing) ? INSTALL_FIX : USERNS_FIX;
    return unavailable(missing, fix);
  }
  const userns = await tryUserNamespace();
  if (userns !== null) return unavailable(`bubblewrap cannot create a user namespace here: ${userns}`, USERNS_FIX);

  const warnings = [...dependencies.warnings];
  if (!(await hasCommand('rg'))) warnings.push('ripgrep (rg) not installed: protected files deeper in writable folders are not found');
  const isRoot = process.geteuid?.() === 0;
  const processLimit = !isRoot || canLimitProcessesWithCgroup();
  if (!processLimit) {
    warnings.push('running as root without a writable pids cgroup: the process limit is not enforced (the kernel exempts uid 0 from RLIMIT_NPROC)');
  }
  return { available: true, warnings, processLimit };
}

function unavailable(reason: string, fix: string): SandboxAvailability {
  return { available: false, reason, fix, warnings: [], processLimit: false };
}

/** Runs `bwrap --unshare-all --ro-bind / / true`; null when it works, else bubblewrap's complaint. */
function tryUserNamespace(): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn('bwrap', ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', 'true'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) => resolve(error.message));
    child.on('close', (code) => resolve(code === 0 ? null : stderr.trim() || `bwrap exited with ${code}`));
  });
}

function hasCommand(name: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

export type SandboxMode = 'isolated' | 'unsandboxed';

export interface ResolveSandboxModeOptions {
  config: Pick<SandboxConfig, 'required'>;
  env?: NodeJS.ProcessEnv;
  /** Where the development-mode warning goes; stderr by default (stdout belongs to the protocol). */
  warn?: (message: string) => void;
  /** A precomputed probe (tests inject one to exercise the unavailable path). */
  availability?: SandboxAvailability;
}

/**
 * The sandbox's network bridges listen on unix sockets in $TMPDIR (`claude-socks-<16 hex>.sock`,
 * the longest name), and a socket's path holds at most 107 bytes: past that, its listen fails
 * with a misleading EADDRINUSE at the first command. Said once, at the start, instead.
 */
export function tmpdirTooLong(dir: string): string | undefined {
  const room = SOCKET_PATH_MAX - '/claude-socks-0123456789abcdef.sock'.length;
  const bytes = Buffer.byteLength(dir);
  if (bytes <= room) return undefined;
  return `the temporary folder ${dir} is ${bytes} bytes long, and the sandbox's sockets in it need it at most ${room} (a unix socket's path holds ${SOCKET_PATH_MAX})`;
}

const SOCKET_PATH_MAX = 107;

/**
 * Decides whether to isolate. Unavailable isolation is a warning in
 * development and a refusal to start in production (`NODE_ENV=production` or
 * `adapters.sandbox.required`): silently running unsandboxed there would be the
 * one failure nobody notices.
 */
export async function resolveSandboxMode(options: ResolveSandboxModeOptions): Promise<SandboxMode> {
  const availability = options.availability ?? (await checkSandboxAvailability());
  const warn = options.warn ?? warnOnStderr;
  if (availability.available) {
    for (const warning of availability.warnings) warn(`sandbox: ${warning}`);
    return 'isolated';
  }
  const env = options.env ?? process.env;
  const production = env.NODE_ENV === 'production';
  if (production || options.config.required) {
    throw new SandboxUnavailableError({
      reason: availability.reason ?? 'unknown',
      fix: availability.fix ?? INSTALL_FIX,
      requiredBy: options.config.required ? 'adapters.sandbox.required' : 'NODE_ENV=production',
    });
  }
  warn(`sandbox unavailable, running UNSANDBOXED (development mode): ${availability.reason}. Fix: ${availability.fix}`);
  return 'unsandboxed';
}
