import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * `mkdir -p` that cannot spin: Node's recursive mkdir retries forever where the kernel
 * answers ENOENT for a child of a folder that exists (under /proc), freezing the event
 * loop. This finds the deepest existing ancestor once, then creates each missing
 * level once, non-recursively; any failure is thrown, never retried.
 */
export function ensureFolder(folder: string): void {
  const missing: string[] = [];
  let current = folder;
  for (;;) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(current).isDirectory();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const parent = dirname(current);
      if (parent === current) throw error;
      missing.push(current);
      current = parent;
      continue;
    }
    if (!isDirectory) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${folder}'`), { code: 'ENOTDIR', path: current });
    break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (error) {
      // A racing process may create the same level first; anything else is a real failure.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
