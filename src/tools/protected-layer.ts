import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { dieWithAgent } from './die-with-agent.js';
import { protectedMounts } from './protected-mounts.js';
import { holdPlaceholders, removeStalePlaceholders, settlePlaceholders } from './protected-placeholders.js';
import { RESTORE_STDERR, retryBwrapStart } from './retry-bwrap-start.js';
import { shellQuote } from './shell-quote.js';

/**
 * The thin read-only layer around commands that run without the sandbox: the
 * whole host as it is (`--dev-bind / /`), with the protected mount set
 * (protected-mounts.ts) bound read-only over it, and a pid namespace of its own so
 * that a command cannot read the agent's `/proc/<pid>/environ`. No network or
 * other walls: that is the sandbox's job.
 */
export interface ProtectedLayer {
  /**
   * The shell line that runs `command` (a bash command line) under the layer, and
   * what to call once it has ended (placeholders go when their last user ends).
   * `parentIsAgent`: the line is run by a shell this process spawned (the local
   * runtime); false for a client's terminal, where only bwrap's own
   * `--die-with-parent` ties it to its parent.
   */
  wrap(command: string, options: { roots: readonly string[]; parentIsAgent: boolean }): Promise<LayeredCommand>;
  /**
   * The program (stdio MCP servers, restarted with the same arguments) under the layer: a
   * `/bin/sh -c` line that starts bwrap around it (retry-bwrap-start.ts), the program's argv after
   * it as the line's positional parameters; `release` once it is
   * gone for good: placeholders go when its mounts have.
   */
  wrapArgv(argv: readonly string[], roots: readonly string[]): Promise<{ argv: string[]; release: () => Promise<void> }>;
}

/** A command under the layer: run `line` with `env` added to the command's environment. */
export interface LayeredCommand {
  line: string;
  /** Carries the command itself (local runs), so that no wrapper's argv repeats it (`ps` shows it once, as without the layer); a client terminal gets it in the line. */
  env: Record<string, string>;
  release: () => Promise<void>;
}

/** The variable that hands the command to the shell inside; not exported any further. */
const COMMAND_ENV = 'PLAITED_LAYER_COMMAND';
const INNER = `${RESTORE_STDERR}c=$${COMMAND_ENV}; unset ${COMMAND_ENV}; exec bash -c "$c"`;

export interface ProtectedLayerOptions {
  /**
   * For a command's roots: paths kept read-only beside the protected set (the user's own
   * plaited folder, secret folders) and paths hidden (the agent's own state, configured
   * `denyRead`; globs are not bound).
   */
  paths?: (roots: readonly string[]) => { readOnly?: readonly string[]; hidden?: readonly string[] };
  /** Every git folder read-only as a whole (see ProtectedMountsOptions). */
  wholeGitDirs?: boolean;
}

/** Why the layer is unavailable here (`null` when it works); checked once per process. */
let unavailable: string | null | undefined;
let bwrapPath: string | null = null;

/** The layer, or `null` with the reason when bubblewrap is missing or cannot make namespaces. */
export function createProtectedLayer(options: ProtectedLayerOptions = {}): { layer: ProtectedLayer | null; reason: string | null } {
  if (unavailable === undefined) unavailable = probe();
  if (unavailable !== null || !bwrapPath) return { layer: null, reason: unavailable };
  const bwrap = bwrapPath;
  const cleaned = new Set<string>();
  const argsFor = async (roots: readonly string[]): Promise<{ args: string[]; release: () => Promise<void>; placeholders: string[] }> => {
    for (const root of roots) {
      if (cleaned.has(root)) continue;
      cleaned.add(root);
      removeStalePlaceholders(root);
    }
    const extra = options.paths?.(roots) ?? {};
    const mounts = protectedMounts(roots, { extraReadOnly: extra.readOnly ?? [], wholeGitDirs: options.wholeGitDirs ?? false });
    const held = await holdPlaceholders(mounts.placeholders);
    const hidden = (extra.hidden ?? []).filter((path) => !/[*?[{]/.test(path) && existsSync(path));
    return { args: layerArgs([...mounts.readOnly, ...held.paths], hidden), release: held.release, placeholders: held.paths };
  };
  return {
    reason: null,
    layer: {
      async wrap(command, { roots, parentIsAgent }): Promise<LayeredCommand> {
        const { args, release } = await argsFor(roots);
        // A start that lost a race with an editor's save is tried again (retry-bwrap-start.ts).
        const start = (inner: readonly string[]) => retryBwrapStart(shellQuote(bwrap), [...args, ...inner].map(shellQuote).join(' '));
        if (parentIsAgent) return { line: dieWithAgent(start(['bash', '-c', INNER])), env: { [COMMAND_ENV]: command }, release };
        // A client's terminal may drop the environment it is given: the command goes in the line.
        const line = start(['bash', '-c', `${RESTORE_STDERR}${command}`]);
        return { line: `if [ -x ${shellQuote(bwrap)} ]; then\n${line}\nelse exec bash -c ${shellQuote(command)}; fi`, env: {}, release };
      },
      async wrapArgv(argv, roots) {
        const { args, release, placeholders } = await argsFor(roots);
        const settled = async (): Promise<void> => {
          await settlePlaceholders(placeholders);
          await release();
        };
        // The program's own words follow the script as its positional parameters, each passed once
        // as it is: written into the script (which names bwrap's start three times) a 50 KB argument
        // made a line over Linux's 128 KiB for one argument, and the server failed with E2BIG.
        const inner = [...args, 'bash', '-c', `${RESTORE_STDERR}exec "$@"`, 'bash'].map(shellQuote).join(' ');
        return { argv: ['/bin/sh', '-c', retryBwrapStart(shellQuote(bwrap), `${inner} "$@"`), 'sh', ...argv], release: settled };
      },
    },
  };
}

/**
 * bubblewrap's arguments: every folder above a protected path is bound onto itself
 * first (a mount point cannot be renamed, so `mv .git .git-old` and renaming the
 * project or a parent fail), then the read-only and hidden binds. `-try`: a path
 * removed meanwhile is skipped rather than failing the command.
 */
export function layerArgs(readOnly: readonly string[], hidden: readonly string[]): string[] {
  const pins = new Set<string>();
  for (const path of [...readOnly, ...hidden]) {
    for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) pins.add(dir);
  }
  const args = ['--dev-bind', '/', '/'];
  for (const dir of [...pins].sort((a, b) => a.length - b.length)) args.push('--bind-try', dir, dir);
  for (const path of [...readOnly].sort()) args.push('--ro-bind-try', path, path);
  for (const path of hidden) {
    if (isDirectory(path)) args.push('--tmpfs', path, '--remount-ro', path);
    else args.push('--ro-bind-try', '/dev/null', path);
  }
  args.push('--unshare-pid', '--proc', '/proc', '--die-with-parent', '--');
  return args;
}

function probe(): string | null {
  bwrapPath = findOnPath('bwrap');
  if (!bwrapPath) return 'bubblewrap (bwrap) is not installed';
  const result = spawnSync(bwrapPath, ['--dev-bind', '/', '/', '--unshare-pid', '--proc', '/proc', '--die-with-parent', '--', 'true'], { stdio: 'pipe', timeout: 5_000 });
  if (result.status === 0) return null;
  const said = result.stderr?.toString().trim().split('\n')[0];
  return `bubblewrap cannot make a pid namespace here${said ? ` (${said})` : ''}`;
}

function findOnPath(program: string): string | null {
  for (const folder of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return null;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
