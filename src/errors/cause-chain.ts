/**
 * An error and the errors it was caused by (`cause`, then its `cause`…), at most `depth` of them:
 * where a library wraps the system's error (SQLite's code, an `fs` errno) in one of its own.
 */
export function* causeChain(error: unknown, depth = 4): Generator<Record<string, unknown>> {
  let current = error;
  for (let seen = 0; typeof current === 'object' && current !== null && seen < depth; seen++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}
