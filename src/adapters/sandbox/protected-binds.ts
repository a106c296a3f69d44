import { lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmdirSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONFIG_FILE_NAMES } from '../../config/load-config.js';
import { existingProtectedPaths } from '../../tools/protected-paths.js';
import { isWithin } from '../../tools/workspace-path.js';

/**
 * Where a config could be created: every name the loader looks for (and the
 * CommonJS spellings a user might try). A missing one is made uncreatable by
 * the sandbox with a read-only placeholder folder inside `.plaited/` (plaited's
 * own folder, never the user's files); a folder is no config to the loader, so a
 * placeholder left by a killed run is harmless until the next start removes it.
 */
const CONFIG_SLOTS = [...CONFIG_FILE_NAMES, 'config.cts', 'config.cjs'];
const PLACEHOLDER_CHILD = 'uncreatable';

/**
 * The paths the sandbox keeps read-only in a project (see src/tools/protected-paths.ts
 * for what and why): the protected files that exist, plus the config slots and
 * `.git/hooks` so that a missing one cannot be created. Only what lies in a writable
 * path matters to bubblewrap; the rest is read-only already.
 */
export function protectedWriteDenies(cwd: string, allowWrite: readonly string[]): string[] {
  const root = resolve(cwd);
  const plaited = join(root, '.plaited');
  const writable = (path: string) => allowWrite.some((allowed) => isWithin(path, allowed));
  const denies = new Set(existingProtectedPaths(root));
  if (writable(plaited)) {
    // The placeholders go inside it; made here so that bubblewrap does not make it as one.
    mkdirSync(plaited, { recursive: true });
    // A path below each missing slot: bubblewrap then holds the slot with an empty read-only folder,
    // which a search walks past (a /dev/null placeholder fails with "Permission denied" on a nodev mount).
    for (const name of CONFIG_SLOTS) denies.add(join(plaited, name, PLACEHOLDER_CHILD));
  }
  const git = join(root, '.git');
  if (isDirectory(git)) {
    const hooks = join(git, 'hooks');
    // What `git init` makes anyway; a read-only folder keeps new hooks out without a placeholder.
    if (writable(hooks) && !isDirectory(hooks)) mkdirSync(hooks, { recursive: true });
    denies.add(hooks);
  }
  return [...denies].sort();
}

/**
 * Mount points a sandbox killed with SIGKILL left on the host (bubblewrap's
 * read-only placeholders for missing protected paths): removed at the next start,
 * unless a live sandbox still uses one (removing it would lift that sandbox's
 * wall). A placeholder file is empty with no write bit and one link; a
 * placeholder folder is one of the library's known names, empty.
 */
export function removeStalePlaceholders(cwd: string): string[] {
  const root = resolve(cwd);
  const removed: string[] = [];
  const candidates = [...CONFIG_SLOTS.map((name) => join(root, '.plaited', name)), ...LIBRARY_PLACEHOLDER_FILES.map((name) => join(root, name))];
  const live = liveMountPoints();
  for (const path of candidates) {
    if (live.has(path) || !isPlaceholderFile(path)) continue;
    try {
      unlinkSync(path);
      removed.push(path);
    } catch {
      // Raced with another cleaner, or not ours to remove.
    }
  }
  const dirs = [...CONFIG_SLOTS.map((name) => join(root, '.plaited', name)), ...LIBRARY_PLACEHOLDER_DIRS.map((name) => join(root, name))];
  for (const dir of dirs) {
    if (live.has(dir) || !isEmptyDirectory(dir)) continue;
    try {
      rmdirSync(dir);
      removed.push(dir);
    } catch {
      // Not empty after all, or gone.
    }
  }
  return removed;
}

/** What `@anthropic-ai/sandbox-runtime` used to stub in the project (see sandbox-runtime-host.ts). */
const LIBRARY_PLACEHOLDER_FILES = ['.gitconfig', '.gitmodules', '.bashrc', '.bash_profile', '.zshrc', '.zprofile', '.profile', '.ripgreprc', '.mcp.json'];
/** Deepest first: `.claude` goes only once its two placeholders are gone. */
const LIBRARY_PLACEHOLDER_DIRS = ['.claude/commands', '.claude/agents', '.claude', '.vscode', '.idea'];

function isPlaceholderFile(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isFile() && stat.size === 0 && (stat.mode & 0o222) === 0 && stat.nlink === 1;
  } catch {
    return false;
  }
}

function isEmptyDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory() && readdirSync(path).length === 0;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Mount points of every process this user can see (a running sandbox's binds show up in its mountinfo). */
function liveMountPoints(): Set<string> {
  const points = new Set<string>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return points;
  }
  const seen = new Set<string>();
  for (const pid of pids) {
    let text: string;
    try {
      // One namespace's table is enough: processes sharing it list the same mounts.
      const ns = readlinkNs(pid);
      if (ns !== null && seen.has(ns)) continue;
      if (ns !== null) seen.add(ns);
      text = readFileSync(`/proc/${pid}/mountinfo`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      const mountPoint = line.split(' ')[4];
      if (mountPoint) points.add(mountPoint.replace(/\\(\d{3})/g, (_match, octal: string) => String.fromCharCode(parseInt(octal, 8))));
    }
  }
  return points;
}

function readlinkNs(pid: string): string | null {
  try {
    return readlinkSync(`/proc/${pid}/ns/mnt`);
  } catch {
    return null;
  }
}
