import { mkdirSync, statSync, type Stats } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * `mkdir -p` that cannot spin: Node's recursive mkdir retries forever where the kernel
 * answers ENOENT for a child of a folder that exists (under /proc): the synchronous call
 * freezes the event loop at 100% CPU, the asynchronous one holds a thread-pool thread for
 * good. This finds the deepest existing ancestor once, then creates each missing level
 * once, non-recursively; any failure is thrown, never retried. `mode` applies to the
 * levels it creates, as with `recursive`. Every folder the product makes goes through
 * here (test/architecture/no-recursive-mkdir.test.ts holds it).
 */
export function ensureFolder(folder: string, mode?: number): void {
  const missing: string[] = [];
  for (let current = folder; ; current = dirname(current)) {
    let info: Stats | undefined;
    try {
      info = statSync(current);
    } catch (error) {
      info = absent(current, error);
    }
    if (info) {
      assertFolder(folder, current, info);
      break;
    }
    missing.push(current);
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level, { mode });
    } catch (error) {
      // A racing process may create the same level first; anything else is a real failure.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** `ensureFolder`, without blocking the event loop (the file tools' writes). */
export async function ensureFolderAsync(folder: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  for (let current = folder; ; current = dirname(current)) {
    const info = await stat(current).catch((error: unknown) => absent(current, error));
    if (info) {
      assertFolder(folder, current, info);
      break;
    }
    missing.push(current);
  }
  for (const level of missing.reverse()) {
    try {
      await mkdir(level, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** A failed stat: undefined when `path` is not there (a missing root is thrown), else thrown. */
function absent(path: string, error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(path) === path) throw error;
  return undefined;
}

function assertFolder(folder: string, current: string, info: Stats): void {
  if (!info.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${folder}'`), { code: 'ENOTDIR', path: current });
}
