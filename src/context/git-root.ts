import { homedir } from 'node:os';
import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isWithin } from '../tools/workspace-path.js';
import { realOrResolved } from './real-or-resolved.js';

/**
 * The git repository a folder is in, for the rules of the folders above it: `root`, the nearest
 * folder (the folder itself included) holding `.git` (a folder, or a file in a worktree), or
 * `foreign`, that folder when its `.git` belongs to another user.
 */
export type GitRoot = { root: string } | { foreign: string; owner: number };

export interface GitRootOptions {
  /** The walk never reaches this folder or above it (default `$HOME`): a dotfiles repository there is no project. */
  home?: string;
  /** The user the repository must belong to (default this process's). */
  uid?: number;
}

/**
 * Walks up from `cwd` to the nearest `.git`; undefined when there is none below the home folder
 * (or, outside it, below `/`). A `.git` of another user stops the walk as git does
 * (`safe.directory`): anyone who can write `/tmp` could plant `/tmp/.git` and `/tmp/AGENTS.md`.
 * The walk starts from the real folder, as git's does: a project opened through a symlink
 * (`~/work` → `/mnt/src/repo/app`) has the root of the folder it is, not of the link's parents. The root is a real path.
 */
export async function findGitRoot(cwd: string, options: GitRootOptions = {}): Promise<GitRoot | undefined> {
  const home = await realOrResolved(options.home ?? process.env.HOME ?? homedir());
  const uid = options.uid ?? process.getuid?.();
  const start = await realOrResolved(cwd);
  const belowHome = start !== home && isWithin(start, home);
  for (let folder = start; ; folder = dirname(folder)) {
    if (belowHome ? folder === home : start === home) return undefined;
    const entry = await lstat(join(folder, '.git')).catch(() => undefined);
    if (entry && (entry.isDirectory() || entry.isFile())) {
      return uid === undefined || entry.uid === uid ? { root: folder } : { foreign: folder, owner: entry.uid };
    }
    if (dirname(folder) === folder) return undefined;
  }
}
