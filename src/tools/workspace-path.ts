import { lstat, readlink, realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PathOutsideWorkspaceError } from './path-outside-workspace-error.js';

/** Symlink hops followed before a path counts as a loop (Linux's own limit is 40). */
const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves a tool's path argument (relative to `cwd`, `~` for home) to an absolute
 * path, and refuses it unless it stays within `cwd` or one of `allowedRoots`.
 * The check runs on the real path, so neither `..` nor a symlink (also a dangling
 * one, or a symlinked parent of a file yet to be created) leads outside.
 * Returns the lexical absolute path (what the user named); throws
 * PathOutsideWorkspaceError otherwise.
 */
export async function resolveWorkspacePath(
  input: string,
  cwd: string,
  allowedRoots: readonly string[],
): Promise<string> {
  const base = path.resolve(cwd);
  const absolute = path.resolve(base, expandHome(input));
  const roots = [base, ...allowedRoots.map((root) => path.resolve(base, expandHome(root)))];
  const realRoots = await Promise.all(roots.map((root) => realPathOf(root)));

  let real: string;
  try {
    real = await realPathOf(absolute);
  } catch {
    // A symlink loop: nothing sensible is inside the workspace.
    throw new PathOutsideWorkspaceError({ path: input, resolvedPath: absolute, roots });
  }
  if (!realRoots.some((root) => isWithin(real, root))) {
    throw new PathOutsideWorkspaceError({ path: input, resolvedPath: real, roots });
  }
  return absolute;
}

/** True when `child` is `parent` or below it. */
export function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  if (relative === '') return true;
  return relative !== '..' && !relative.startsWith('..' + path.sep) && !path.isAbsolute(relative);
}

function expandHome(input: string): string {
  if (input === '~') return os.homedir();
  if (input.startsWith('~/')) return path.join(os.homedir(), input.slice(2));
  return input;
}

/**
 * realpath for paths that may not exist yet: follows the existing part (and any
 * dangling symlink, whose target a write would create) and appends the rest.
 */
async function realPathOf(target: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw new Error(`too many symlinks at ${target}`);
  try {
    return await realpath(target);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const link = await lstat(target).catch(() => undefined);
  if (link?.isSymbolicLink()) {
    const pointsTo = path.resolve(path.dirname(target), await readlink(target));
    return realPathOf(pointsTo, hops + 1);
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  return path.join(await realPathOf(parent, hops), path.basename(target));
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
