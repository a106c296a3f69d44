import { homedir } from 'node:os';
import { lstat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isWithin } from '../tools/workspace-path.js';

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
 */
export async function findGitRoot(cwd: string, options: GitRootOptions = {}): Promise<GitRoot | undefined> {
  const home = resolve(options.home ?? process.env.HOME ?? homedir());
  const uid = options.uid ?? process.getuid?.();
  const start = resolve(cwd);
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
