import { PlaitedError } from '../errors/plaited-error.js';

/**
 * The one error type of the context layer. Loaders report problems as diagnostics
 * and never throw; this is for API misuse the caller must handle (a cycle in the
 * relation store, a path outside the memory folder, an unknown node).
 */
export type ContextErrorCode =
  | 'cycle'
  | 'unknown-node'
  | 'duplicate-node'
  | 'path-outside-root'
  | 'not-found'
  | 'invalid-argument';

export class ContextError extends PlaitedError<ContextErrorCode> {
  override readonly name = 'ContextError';
  /** What was involved (node ids, paths), for messages and tests. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ContextErrorCode, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.details = options.details ?? {};
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(value: unknown): value is ContextError {
    return value instanceof Error && value.name === 'ContextError' && typeof (value as { code?: unknown }).code === 'string';
  }
}
