import { PlaitedError } from '../errors/plaited-error.js';

/** A whole-file read (edit_file, write_file's diff) of a file over the runtime's bound. */
export class FileTooLargeError extends PlaitedError<'file_too_large'> {
  readonly path: string;
  /** The file's size in bytes. */
  readonly size: number;
  /** The bound it is over, in bytes. */
  readonly limit: number;

  constructor(options: { path: string; size: number; limit: number }) {
    super(
      'file_too_large',
      `${options.path} is ${(options.size / (1024 * 1024)).toFixed(1)} MB; whole-file reads (edit_file, write_file's diff) stop at ${options.limit / (1024 * 1024)} MB. ` +
        'Read it in windows with read_file (offset, limit) and change it with bash (e.g. sed -i).',
    );
    this.name = 'FileTooLargeError';
    this.path = options.path;
    this.size = options.size;
    this.limit = options.limit;
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is FileTooLargeError {
    return error instanceof Error && error.name === 'FileTooLargeError' && (error as FileTooLargeError).code === 'file_too_large';
  }
}
