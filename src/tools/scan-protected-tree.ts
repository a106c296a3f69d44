import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { matchesProtectedName, realOrSelf } from './protected-paths.js';

/** What a walk of a project found: the places the walls must cover. */
export interface ProtectedTree {
  /** `.git` folders, at any depth (build output and `node_modules` included). */
  gitDirs: string[];
  /** `.git` files (worktrees, submodules): they point git at another folder. */
  gitFiles: string[];
  /** Other protected names that exist (`.vscode`, `.envrc`, …), outside bulk folders. */
  protectedFound: string[];
  /** The walk ran out of its budget: what it did not reach is not covered. */
  incomplete: boolean;
}

export interface ScanBudget {
  /** Wall clock for one walk; default 2 s. */
  timeMs?: number;
  /** Directory entries looked at; default 300,000. */
  maxEntries?: number;
  /** Reuse a walk this recent (default 10 s: a repository made by a command is covered at the latest this much later). */
  maxAgeMs?: number;
}

/** Folders other tools fill in bulk: searched for repositories only (a `.vscode` in a package is not the user's). */
const BULK = new Set(['node_modules', 'dist', 'build', 'target', 'out', '.venv', 'venv', '__pycache__', 'vendor', '.cache', '.next', '.turbo']);
const cache = new Map<string, { at: number; tree: ProtectedTree }>();

/**
 * Walks a project (and looks above it, for the repository it is part of) for
 * everything whose protection depends on what exists: repositories at any depth,
 * and existing protected files. Symlinks are not followed (no loops, no walking
 * out of the project). Bounded by time and entries; reused for a few seconds.
 */
export function scanProtectedTree(root: string, budget: ScanBudget = {}): ProtectedTree {
  const top = resolve(root);
  const cached = cache.get(top);
  if (cached && Date.now() - cached.at < (budget.maxAgeMs ?? 10_000)) return cached.tree;
  const tree: ProtectedTree = { gitDirs: [], gitFiles: [], protectedFound: [], incomplete: false };
  const deadline = Date.now() + (budget.timeMs ?? 2_000);
  let entries = 0;
  const maxEntries = budget.maxEntries ?? 300_000;
  const stack: Array<{ dir: string; bulk: boolean }> = [{ dir: top, bulk: false }];
  while (stack.length > 0) {
    const { dir, bulk } = stack.pop()!;
    for (const entry of readEntries(dir)) {
      entries++;
      const path = join(dir, entry.name);
      if (entry.name === '.git') {
        if (entry.isDirectory()) tree.gitDirs.push(path);
        else if (entry.isFile()) tree.gitFiles.push(path);
        else if (entry.isSymbolicLink()) tree.gitDirs.push(realOrSelf(path));
        continue;
      }
      if (!bulk && matchesProtectedName(path)) {
        tree.protectedFound.push(path);
        continue;
      }
      if (entry.isDirectory()) stack.push({ dir: path, bulk: bulk || BULK.has(entry.name) });
    }
    if (entries > maxEntries || (entries % 512 === 0 && Date.now() > deadline)) {
      tree.incomplete = stack.length > 0;
      break;
    }
  }
  addEnclosingRepository(top, tree);
  cache.set(top, { at: Date.now(), tree });
  return tree;
}

/**
 * The repository a project folder belongs to, when its `.git` is above it. Each folder above is
 * asked for its `.git` alone, never listed: a project in /tmp or a crowded home sits under
 * thousands of entries, and listing them cost every walk (every sandboxed command, every start)
 * ~20 ms of CPU.
 */
function addEnclosingRepository(top: string, tree: ProtectedTree): void {
  for (let dir = dirname(top); dir !== dirname(dir); dir = dirname(dir)) {
    const entry = lstatOrNull(join(dir, '.git'));
    if (!entry) continue;
    if (entry.isDirectory()) tree.gitDirs.push(join(dir, '.git'));
    else if (entry.isFile()) tree.gitFiles.push(join(dir, '.git'));
    return;
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null; // not ours to look into
  }
}

function readEntries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
