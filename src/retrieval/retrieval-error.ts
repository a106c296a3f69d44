import { PlaitedError } from '../errors/plaited-error.js';

/** Why an index operation failed; `code` is stable, the message is for people. */
export type RetrievalErrorCode =
  | 'INDEX_OPEN_FAILED'
  | 'INDEX_CLOSED'
  | 'EMBEDDING_FAILED'
  | 'EMBEDDING_DIMENSION_MISMATCH'
  | 'INVALID_DOCUMENT'
  | 'NO_EMBEDDER'
  | 'INVALID_FUSION_MODEL'
  | 'ABORTED';

export class RetrievalError extends PlaitedError<RetrievalErrorCode> {
  override readonly name = 'RetrievalError';
  /** The index file, a document id, … whatever locates the failure. */
  declare readonly context: Readonly<Record<string, unknown>>;

  constructor(
    code: RetrievalErrorCode,
    message: string,
    options: { context?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause, context: options.context ?? {} });
  }

  /** Works across duplicate copies of this module, unlike `instanceof`. */
  static override isInstance(error: unknown): error is RetrievalError {
    return error instanceof Error && error.name === 'RetrievalError' && typeof (error as RetrievalError).code === 'string';
  }
}

/** A search stopped by its caller's signal. */
export function abortedSearch(signal: AbortSignal): RetrievalError {
  return new RetrievalError('ABORTED', 'the search was aborted', { cause: signal.reason });
}
