import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the model layer tells the turn that made a call while the call runs (a retry after a
 * 429, a download's progress): a notice for the session's client. The provider's `fetch` is
 * made once per model and shared by sessions, so the turn's listener travels with the call's
 * async context instead of its arguments.
 */
export type ModelCallObserver = (notice: { level: 'info' | 'warning'; message: string }) => void;

const storage = new AsyncLocalStorage<ModelCallObserver>();

/** Runs `call` with `observer` hearing what the model layer reports during it. */
export function observeModelCall<T>(observer: ModelCallObserver, call: () => T): T {
  return storage.run(observer, call);
}

/** The observer of the call running now, if any. */
export function currentModelCallObserver(): ModelCallObserver | undefined {
  return storage.getStore();
}
