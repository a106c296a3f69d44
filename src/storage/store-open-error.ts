import { causeChain } from '../errors/cause-chain.js';
import { errorMessage } from '../errors/error-message.js';
import { StorageError } from './storage-error.js';

/** SQLite's codes for a file that is not (or no longer) a sound database. */
const DAMAGED = ['SQLITE_NOTADB', 'SQLITE_CORRUPT'];
/** Codes for a file or folder this user may not open or write. */
const UNWRITABLE = ['SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_AUTH', 'EACCES', 'EPERM', 'EROFS'];

/** SQLite's code or the system's errno, wherever in the error's causes it is. */
function codeOf(error: unknown): string | undefined {
  for (const { code } of causeChain(error)) {
    if (typeof code === 'string' && (code.startsWith('SQLITE_') || /^E[A-Z]+$/.test(code))) return code;
  }
  return undefined;
}

const matches = (code: string | undefined, codes: readonly string[]) => code !== undefined && codes.some((known) => code === known || code.startsWith(`${known}_`));

/** Whether SQLite said the file is damaged (not a database, or a malformed image). */
export function isDamagedStoreError(error: unknown): boolean {
  return matches(codeOf(error), DAMAGED);
}

/**
 * What to do about a damaged store file. The agent never deletes or repairs it on its own: it
 * may hold the only copy of a user's sessions.
 */
export function damagedStoreFix(path: string): string {
  return `move it aside (mv "${path}" "${path}.damaged") to start with an empty store, or restore it from a backup; plaited-agent leaves the file as it is, so what it holds can still be recovered (sqlite3 "${path}.damaged" .recover)`;
}

/** A store file SQLite found damaged, opening or reading it: `open_failed`, with the fix. */
export function storeDamagedError(what: string, path: string, error: unknown): StorageError {
  return new StorageError('open_failed', `${what} ${path} is damaged (${errorMessage(error)}): ${damagedStoreFix(path)}`, { path, cause: error });
}

/**
 * A store file that could not be opened, in the store's own error (`open_failed`) with the cause
 * and its fix in the message: every face (ACP, A2A, MCP, `-p`, `sessions`) reports that message,
 * so the fix is written here once. `what` names the store ("session store", "A2A task store").
 */
export function storeOpenError(what: string, path: string, error: unknown): StorageError {
  if (StorageError.isInstance(error)) return error;
  const code = codeOf(error);
  const cause = errorMessage(error);
  if (matches(code, DAMAGED)) return storeDamagedError(what, path, error);
  const message = matches(code, UNWRITABLE)
    ? `cannot open ${what} ${path}: ${cause}; make the file and its folder readable and writable by this user, or point the store at another file`
    : `cannot open ${what} ${path}: ${cause}`;
  return new StorageError('open_failed', message, { path, cause: error });
}
