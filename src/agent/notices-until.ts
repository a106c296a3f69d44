import { observeModelCall } from '../model/model-call-observer.js';

export interface ModelNotice {
  type: 'notice';
  level: 'info' | 'warning';
  message: string;
}

/**
 * Runs `call` with the model layer's observer set (model-call-observer.ts) and yields what it
 * tells while the call runs (a retry after a 429, a download's progress), then returns its result.
 */
export async function* noticesUntil<T>(call: () => Promise<T>): AsyncGenerator<ModelNotice, T> {
  const notices: ModelNotice[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  const started = observeModelCall((notice) => {
    notices.push({ type: 'notice', ...notice });
    wake?.();
  }, call);
  const done = () => {
    settled = true;
    wake?.();
  };
  started.then(done, done);
  while (!settled || notices.length > 0) {
    const notice = notices.shift();
    if (notice) yield notice;
    else await new Promise<void>((resolve) => (wake = resolve));
  }
  return started;
}
