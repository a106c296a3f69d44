import { PlaitedError } from '../errors/plaited-error.js';

/** A process could not be started at all (missing program, missing cwd, no permission). */
export class ProcessSpawnError extends PlaitedError<'spawn_failed'> {
  readonly file: string;
  readonly cwd: string;
  /** The OS error code of the cause (`ENOENT`, `EACCES`), when there is one. */
  readonly errno: string | undefined;

  constructor(options: { file: string; cwd: string; cause: unknown }) {
    const errno = errnoOf(options.cause);
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super('spawn_failed', `Could not start "${options.file}" in ${options.cwd}: ${reason}`, { cause: options.cause });
    this.name = 'ProcessSpawnError';
    this.file = options.file;
    this.cwd = options.cwd;
    this.errno = errno;
  }

  /** Works across duplicate copies of this package, where instanceof would not. */
  static override isInstance(error: unknown): error is ProcessSpawnError {
    return error instanceof Error && (error as { code?: unknown }).code === 'spawn_failed' && 'file' in error;
  }
}

function errnoOf(cause: unknown): string | undefined {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
