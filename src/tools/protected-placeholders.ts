import { chmodSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { rmdir, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { CONFIG_WORKTREE_PLACEHOLDER, type PlaceholderSpec } from './protected-mounts.js';
import { UNCREATABLE_NAMES } from './protected-paths.js';
import { scanProtectedTree } from './scan-protected-tree.js';
import { ensureFolder } from '../storage/ensure-folder.js';
import { readTextHeadSync } from '../storage/read-text-head.js';

/**
 * Placeholders: a missing protected name (`.envrc`, `.mcp.json`, `.git/commondir`)
 * needs something at its path for the kernel to bind read-only, or a command could
 * create it. In the project that is an empty folder with no write bits: `git status`
 * and `git add -A` do not see an empty folder, and no reader takes a folder for a
 * config. Inside a git folder it is a file git reads as "nothing changed" (`.` for
 * `commondir`, empty for `config.worktree`). They exist while a command (or the
 * whole-agent sandbox) that needs them runs, are counted per user, and go when the
 * last one ends, at exit, or at the next start after a kill.
 */

interface Held {
  count: number;
  spec: PlaceholderSpec;
  /** Folders made to hold it (`.claude` for `.claude/settings.json`), removed with it when empty. */
  parents: string[];
}

const held = new Map<string, Held & { removing?: Promise<void> }>();
let exitHooked = false;

/** What a hold gives: the placeholders that now exist (to bind read-only), and its end. */
export interface PlaceholderHold {
  paths: string[];
  /** Once the command has ended: the last user of a placeholder removes it (awaited, so nothing is left after). */
  release: () => Promise<void>;
}

/** Makes the missing placeholders (after any removal still under way of the same ones). */
export async function holdPlaceholders(specs: readonly PlaceholderSpec[]): Promise<PlaceholderHold> {
  hookExit();
  await Promise.all(specs.map((spec) => held.get(spec.path)?.removing));
  const owned: string[] = [];
  const paths: string[] = [];
  for (const spec of specs) {
    const current = held.get(spec.path);
    if (current && !current.removing) {
      current.count++;
      owned.push(spec.path);
      paths.push(spec.path);
      continue;
    }
    if (lstatSync(spec.path, { throwIfNoEntry: false })) {
      // Made meanwhile (by the user, or another agent's placeholder): bound as it is. One of our
      // shape (a killed run's, its sandbox perhaps still dying) is adopted, so it goes with this hold;
      // removal skips it while any live sandbox still binds it.
      if (isPlaceholder(spec.path, spec.kind === 'dir' ? null : (spec.content ?? ''))) {
        held.set(spec.path, { count: 1, spec, parents: [] });
        owned.push(spec.path);
      }
      paths.push(spec.path);
      continue;
    }
    try {
      const parents = makeParents(dirname(spec.path));
      if (spec.kind === 'dir') mkdirSync(spec.path, { mode: 0o555 });
      else writeFileSync(spec.path, spec.content ?? '', { mode: 0o444, flag: 'wx' });
      chmodSync(spec.path, spec.kind === 'dir' ? 0o555 : 0o444);
      held.set(spec.path, { count: 1, spec, parents });
      owned.push(spec.path);
      paths.push(spec.path);
    } catch {
      // Not ours to make (a read-only parent): nothing can be created there by a command either.
    }
  }
  let released = false;
  return {
    paths,
    release: async () => {
      if (released) return;
      released = true;
      const ending = owned.filter((path) => {
        const entry = held.get(path);
        return entry !== undefined && --entry.count === 0;
      });
      // At once: the user's `git status` or `ls` after the command sees nothing of them.
      await removeUnused(ending);
    },
  };
}

/**
 * Removes placeholders no command uses any more, in parallel (a removal waits on the
 * file system's journal; one after the other they cost a command more than bubblewrap),
 * unless another process's sandbox binds one (removing it would lift that sandbox's
 * wall), then the folders made for them.
 */
async function removeUnused(paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const live = liveMountPoints();
  const entries = paths.map((path) => [path, held.get(path)!] as const);
  const batch = (async () => {
    await Promise.all(
      entries.map(([path, entry]) =>
        isPlaceholder(path, entry.spec.kind === 'dir' ? null : (entry.spec.content ?? '')) && !live.has(path) ? removeAsync(path) : undefined,
      ),
    );
    const parents = [...new Set(entries.flatMap(([, entry]) => entry.parents))].sort((x, y) => y.length - x.length);
    for (const parent of parents) if (isEmptyDirectory(parent) && !live.has(parent)) await removeAsync(parent);
    for (const [path] of entries) held.delete(path);
  })();
  for (const [, entry] of entries) entry.removing = batch;
  await batch;
}

async function removeAsync(path: string): Promise<void> {
  try {
    await (lstatSync(path).isDirectory() ? rmdir(path) : unlink(path));
  } catch {
    // Raced with another cleaner, not empty after all, or not ours to remove.
  }
}

/** Made folders, deepest first. */
function makeParents(dir: string): string[] {
  const made: string[] = [];
  for (let current = dir; !lstatSync(current, { throwIfNoEntry: false }); current = dirname(current)) made.push(current);
  ensureFolder(dir);
  return made;
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  // At exit nothing async runs any more: what is left goes synchronously.
  process.once('exit', () => {
    if (held.size === 0) return;
    const live = liveMountPoints();
    for (const [path, entry] of held) {
      if (isPlaceholder(path, entry.spec.kind === 'dir' ? null : (entry.spec.content ?? '')) && !live.has(path)) removeQuietly(path);
      for (const parent of entry.parents) if (isEmptyDirectory(parent) && !live.has(parent)) removeQuietly(parent);
    }
    held.clear();
  });
}

/**
 * Waits (at most `timeoutMs`) until no live mount namespace binds any of `paths`. A sandbox's
 * last processes can outlive the one the launcher waited for by a moment; a placeholder still
 * bound then is skipped by the removal and would be left in the project.
 */
export async function settlePlaceholders(paths: readonly string[], timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = liveMountPoints();
    if (!paths.some((path) => live.has(path)) || Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What `@anthropic-ai/sandbox-runtime` used to stub in the project (empty files, no write bits). */
const LIBRARY_PLACEHOLDER_FILES = ['.gitconfig', '.gitmodules', '.bashrc', '.bash_profile', '.zshrc', '.zprofile', '.profile', '.ripgreprc', '.mcp.json'];
/** Folders older versions left empty (any mode); deepest first, `.claude` once its children are gone. */
const OLDER_PLACEHOLDER_DIRS = ['.claude/commands', '.claude/agents', '.claude', '.vscode', '.idea'];

/**
 * Placeholders a killed run left (it could not clean up after itself): removed at
 * the next start, unless a live sandbox still binds one. Only our shapes go: an
 * empty folder with no write bits, a git stand-in file with its exact content, or
 * what older versions left; a user's file never.
 */
export function removeStalePlaceholders(cwd: string): string[] {
  const root = resolve(cwd);
  const live = liveMountPoints();
  const removed: string[] = [];
  const tryRemove = (path: string, shape: () => boolean) => {
    if (held.has(path) || live.has(path) || !shape()) return;
    if (removeQuietly(path)) removed.push(path);
  };
  for (const name of UNCREATABLE_NAMES) tryRemove(join(root, name), () => isPlaceholder(join(root, name), null));
  for (const name of LIBRARY_PLACEHOLDER_FILES) tryRemove(join(root, name), () => isPlaceholder(join(root, name), ''));
  for (const name of UNCREATABLE_NAMES.filter((slot) => slot.startsWith('.plaited/'))) {
    const path = join(root, name);
    tryRemove(join(path, 'uncreatable'), () => isEmptyDirectory(join(path, 'uncreatable')));
    tryRemove(path, () => isEmptyDirectory(path) || isPlaceholder(path, ''));
  }
  for (const name of OLDER_PLACEHOLDER_DIRS) tryRemove(join(root, name), () => isEmptyDirectory(join(root, name)));
  for (const gitDir of scanProtectedTree(root).gitDirs) {
    tryRemove(join(gitDir, 'commondir'), () => isPlaceholder(join(gitDir, 'commondir'), '.\n'));
    tryRemove(join(gitDir, 'config.worktree'), () => isPlaceholder(join(gitDir, 'config.worktree'), CONFIG_WORKTREE_PLACEHOLDER));
    tryRemove(join(gitDir, 'hooks'), () => isPlaceholder(join(gitDir, 'hooks'), null));
  }
  return removed;
}

/** Our shape: `content` null for a folder (empty, no write bits), else a file with exactly that content, no write bits, one link. */
function isPlaceholder(path: string, content: string | null): boolean {
  try {
    const stat = lstatSync(path);
    if ((stat.mode & 0o222) !== 0) return false;
    if (content === null) return stat.isDirectory() && readdirSync(path).length === 0;
    return stat.isFile() && stat.nlink === 1 && stat.size === Buffer.byteLength(content) && readTextHeadSync(path, stat.size).text === content;
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

function removeQuietly(path: string): boolean {
  try {
    if (lstatSync(path).isDirectory()) rmdirSync(path);
    else unlinkSync(path);
    return true;
  } catch {
    // Raced with another cleaner, not empty after all, or not ours to remove.
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
      const ns = readlinkSync(`/proc/${pid}/ns/mnt`);
      if (seen.has(ns)) continue;
      seen.add(ns);
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
