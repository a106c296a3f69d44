import { PlaitedError } from '../errors/plaited-error.js';

/** A session that already runs its maximum of background commands. */
export class BackgroundLimitError extends PlaitedError<'background_limit'> {
  constructor(
    readonly sessionId: string,
    readonly limit: number,
  ) {
    super('background_limit', `This session already runs ${limit} background commands; stop one with bash_kill first`);
    this.name = 'BackgroundLimitError';
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is BackgroundLimitError {
    return PlaitedError.isInstance(error) && error.name === 'BackgroundLimitError';
  }
}
