import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';

/** The path's real path (symlinks followed); the path as given, resolved, when it cannot be read. */
export function realOrResolved(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}
