import { StorageError } from '../storage-error.js';
import { errorMessage } from '../../errors/error-message.js';

/**
 * A failed PostgreSQL write in the store's own error, as `storageWriteError` does for SQLite:
 * `storage_full` for class 53 (disk full, out of memory), `write_failed` for a lost connection
 * or another server-side failure. Our own errors pass through.
 */
export function postgresWriteError(error: unknown, location: string, sessionId: string): unknown {
  if (StorageError.isInstance(error)) return error;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (code === '53100' || code === '53200') {
    return new StorageError(
      'storage_full',
      `cannot write session ${sessionId} to ${location}: the database server is out of space (${code}); free some, then send the prompt again`,
      { path: location, sessionId, cause: error },
    );
  }
  return new StorageError('write_failed', `cannot write session ${sessionId} to ${location}: ${errorMessage(error)}${typeof code === 'string' ? ` (${code})` : ''}`, {
    path: location,
    sessionId,
    cause: error,
  });
}
