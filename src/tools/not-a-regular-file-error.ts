import { PlaitedError } from '../errors/plaited-error.js';

/** A file tool's path that names a folder, a named pipe, a socket or a device: the tools read and write regular files. */
export class NotARegularFileError extends PlaitedError<'not_a_regular_file'> {
  readonly path: string;
  /** What is there instead: 'a folder', 'a named pipe', … */
  readonly found: string;

  constructor(options: { path: string; found: string }) {
    super('not_a_regular_file', `${options.path} is ${options.found}, not a regular file: the file tools read and write regular files only (bash reaches the rest).`);
    this.name = 'NotARegularFileError';
    this.path = options.path;
    this.found = options.found;
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is NotARegularFileError {
    return error instanceof Error && error.name === 'NotARegularFileError' && (error as NotARegularFileError).code === 'not_a_regular_file';
  }
}
