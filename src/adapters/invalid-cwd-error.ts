import { PlaitedError } from '../errors/plaited-error.js';

/** A client-supplied session folder that is refused; adapters answer it as invalid params naming `field`. */
export class InvalidCwdError extends PlaitedError<'invalid_cwd'> {
  override readonly name = 'InvalidCwdError';

  constructor(
    /** The request field that carried the folder (`cwd`). */
    readonly field: string,
    /** The value as received, cut to a readable length. */
    readonly value: string,
    /** Why it was refused, e.g. "does not exist". */
    readonly reason: string,
  ) {
    super('invalid_cwd', `${field} ${reason}`);
  }

  static override isInstance(error: unknown): error is InvalidCwdError {
    return error instanceof Error && error.name === 'InvalidCwdError' && typeof (error as InvalidCwdError).field === 'string';
  }
}
