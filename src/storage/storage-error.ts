import { PlaitedError } from '../errors/plaited-error.js';

export type StorageErrorCode =
  /** The session the call names is not in this store. */
  | 'session_not_found'
  /** `createSession` with an id that is already taken. */
  | 'session_exists'
  /** The file was written by a newer plaited-agent (its schema version is unknown to us). */
  | 'schema_too_new'
  /** This process lost the session's lease (another process took it over): the write was refused. */
  | 'session_in_use'
  /** SQLite could not open or prepare the file (not a database, unwritable folder, …). */
  | 'open_failed'
  /** A write failed because the disk (or the file system's quota) is full: nothing of it was stored. */
  | 'storage_full'
  /** A write failed for another I/O reason (read-only file, I/O error): nothing of it was stored. */
  | 'write_failed'
  /** A permission rules file that is not the JSON it should be (`{ project, rules: [...] }`). */
  | 'rules_unreadable';

/** A session-store failure, with the file and the session it concerns. */
export class StorageError extends PlaitedError<StorageErrorCode> {
  override readonly name = 'StorageError';
  readonly path: string;
  readonly sessionId: string | undefined;
  /** `open_failed` that no retry fixes (a refused password, a missing database): a server's start stops on it. */
  readonly permanent: boolean;

  constructor(
    code: StorageErrorCode,
    message: string,
    context: { path: string; sessionId?: string; cause?: unknown; permanent?: boolean },
  ) {
    super(code, message, context.cause === undefined ? {} : { cause: context.cause });
    this.path = context.path;
    this.sessionId = context.sessionId;
    this.permanent = context.permanent ?? false;
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is StorageError {
    return error instanceof Error && error.name === 'StorageError' && typeof (error as StorageError).code === 'string';
  }
}
