import { PlaitedError } from '../../errors/plaited-error.js';

export type NetworkAuthErrorCode =
  /** `--no-auth` with a host other people can reach. */
  | 'no_auth_not_loopback'
  /** A configured token too short (or with characters a header cannot carry) to be a secret. */
  | 'weak_token'
  /** Two principals configured with the same token, or a principal name that cannot be used. */
  | 'invalid_principals';

/** A network-auth setting that cannot be applied; the server refuses to start with it. */
export class NetworkAuthError extends PlaitedError<NetworkAuthErrorCode> {
  override readonly name = 'NetworkAuthError';

  constructor(code: NetworkAuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is NetworkAuthError {
    return error instanceof Error && error.name === 'NetworkAuthError' && typeof (error as NetworkAuthError).code === 'string';
  }
}
