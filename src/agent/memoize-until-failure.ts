/**
 * `load` run once and its promise shared, except that a failure is not kept: the next
 * call tries again (a model endpoint or a download may come back).
 */
export function memoizeUntilFailure<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}
