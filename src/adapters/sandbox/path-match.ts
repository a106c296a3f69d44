import { readlinkSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import picomatch from 'picomatch';

/**
 * Whether an absolute path lies at or under one of the roots. Roots may be
 * glob patterns (`*`, `**`, `?`), as deny lists allow; a path under a matched
 * directory matches too.
 */
export function matchesAnyPath(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => (hasGlob(root) ? globMatch(root, path) : path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)));
}

export function hasGlob(path: string): boolean {
  return /[*?[{]/.test(path);
}

const matchers = new Map<string, (path: string) => boolean>();

/** The pattern itself, or anything under what it matches; dot files count (`~/.ssh/*` covers `~/.ssh/.key`). */
function globMatch(pattern: string, path: string): boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    matcher = picomatch([pattern, `${pattern.replace(/\/+$/, '')}/**`], { dot: true });
    matchers.set(pattern, matcher);
  }
  return matcher(path);
}

/** Where a write would land: the link's target when the path is a symlink (chains followed, missing targets allowed). */
export function followLinks(path: string): string {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    let target: string;
    try {
      target = readlinkSync(current);
    } catch {
      return current;
    }
    current = resolve(dirname(current), target);
  }
  return current;
}
