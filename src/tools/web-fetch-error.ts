import { PlaitedError } from '../errors/plaited-error.js';

export type WebFetchErrorCode = 'host_not_allowed' | 'bad_url' | 'timeout' | 'request_failed';

/** A typed failure of the fetch, reported to the model as a tool error. */
export class WebFetchError extends PlaitedError<WebFetchErrorCode> {
  constructor(code: WebFetchErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'WebFetchError';
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is WebFetchError {
    return PlaitedError.isInstance(error) && error.name === 'WebFetchError';
  }
}
