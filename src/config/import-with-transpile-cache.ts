import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { JitiOptions } from 'jiti';
import { causeChain } from '../errors/cause-chain.js';
import { errorMessage } from '../errors/error-message.js';
import { setAsideDamagedFile } from '../storage/set-aside-damaged-file.js';
import { transpileCacheFor } from './transpile-cache.js';

/**
 * Imports `file` through jiti with its copies kept in the user's transpile cache
 * (transpile-cache.ts). A copy that cannot be read (a folder or a symlink loop in its place) is
 * no fault of the file and is built again: on an `fs` error the file is loaded once without the
 * cache (its own faults still throw), and if that works, what in the cache is not a regular file
 * is moved aside (`.damaged`) and `warn` says so, so it does not fail every start.
 */
export async function importWithTranspileCache(
  file: string,
  options: { jiti: Omit<JitiOptions, 'fsCache'>; importOptions?: { default?: true }; env?: NodeJS.ProcessEnv; warn: (message: string) => void },
): Promise<unknown> {
  const { createJiti } = await import('jiti');
  const cacheDir = transpileCacheFor(file, options.env);
  const load = (fsCache: string | false) => createJiti(import.meta.url, { ...options.jiti, fsCache }).import(file, options.importOptions ?? {});
  try {
    return await load(cacheDir);
  } catch (error) {
    if (cacheDir === false || !isFileSystemError(error)) throw error;
    const value = await load(false);
    const moved = setAsideOddEntries(cacheDir);
    const where = moved.length > 0 ? `moved ${moved.join(', ')} aside (.damaged)` : 'it was transpiled again';
    options.warn(`a transpiled copy of ${file} in ${cacheDir} could not be read (${errorMessage(error)}): ${where}`);
    return value;
  }
}

/** An `fs` error (EISDIR, ELOOP, EACCES…), here or among its causes. */
function isFileSystemError(error: unknown): boolean {
  return [...causeChain(error)].some(({ code, syscall }) => typeof code === 'string' && /^E[A-Z]+$/.test(code) && typeof syscall === 'string');
}

/** Moves aside what in the file's cache folder is not a regular file (the folder itself when it is not one); the names moved. */
function setAsideOddEntries(cacheDir: string): string[] {
  const moved: string[] = [];
  let entries;
  try {
    entries = readdirSync(cacheDir, { withFileTypes: true });
  } catch {
    setAsideDamagedFile(cacheDir);
    return [cacheDir];
  }
  for (const entry of entries) {
    if (entry.isFile() || /\.damaged(-\d+)?$/.test(entry.name)) continue;
    setAsideDamagedFile(join(cacheDir, entry.name));
    moved.push(entry.name);
  }
  return moved;
}
