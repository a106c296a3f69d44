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

export class RetrievalError extends Error {
  override readonly name = 'RetrievalError';
  readonly code: RetrievalErrorCode;
  /** The index file, a document id, … whatever locates the failure. */
  readonly context: Readonly<Record<string, unknown>>;

  constructor(
    code: RetrievalErrorCode,
    message: string,
    options: { context?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.context = options.context ?? {};
  }

  /** Works across duplicate copies of this module, unlike `instanceof`. */
  static isInstance(error: unknown): error is RetrievalError {
    return error instanceof Error && error.name === 'RetrievalError' && typeof (error as RetrievalError).code === 'string';
  }
}

/** A search stopped by its caller's signal. */
export function abortedSearch(signal: AbortSignal): RetrievalError {
  return new RetrievalError('ABORTED', 'the search was aborted', { cause: signal.reason });
}
