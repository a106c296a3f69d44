import { StorageError } from './storage-error.js';
import { errorMessage } from '../errors/error-message.js';
import { damagedStoreFix, isDamagedStoreError } from './store-open-error.js';

/** SQLite result codes that mean the file could not be written (extended codes start with these). */
const FULL = ['SQLITE_FULL'];
const WRITE = ['SQLITE_IOERR', 'SQLITE_READONLY', 'SQLITE_CANTOPEN'];

/**
 * A failed write in the store's own error: `storage_full` (with the fix: free space, then
 * prompt again; the transaction was rolled back, so the session goes on from its last
 * stored state) or `write_failed`. Errors that are not SQLite I/O failures pass through.
 */
export function storageWriteError(error: unknown, path: string, sessionId: string): unknown {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string' || StorageError.isInstance(error)) return error;
  const matches = (codes: readonly string[]) => codes.some((prefix) => code === prefix || code.startsWith(`${prefix}_`));
  if (matches(FULL)) {
    return new StorageError(
      'storage_full',
      `cannot write session ${sessionId} to ${path}: the disk is full (${code}); free some space, then send the prompt again`,
      { path, sessionId, cause: error },
    );
  }
  if (isDamagedStoreError(error)) {
    return new StorageError('write_failed', `cannot write session ${sessionId} to ${path}: the file is damaged (${errorMessage(error)}); ${damagedStoreFix(path)}`, {
      path,
      sessionId,
      cause: error,
    });
  }
  if (matches(WRITE)) {
    return new StorageError(
      'write_failed',
      `cannot write session ${sessionId} to ${path}: ${errorMessage(error)} (${code}); nothing of it was stored: check that the file and its folder can be written, then send the prompt again`,
      { path, sessionId, cause: error },
    );
  }
  return error;
}
