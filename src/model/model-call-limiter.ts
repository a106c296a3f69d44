/** Model calls one process makes at once unless `agent.maxConcurrentModelCalls` says otherwise. */
export const DEFAULT_MAX_CONCURRENT_MODEL_CALLS = 8;

/**
 * A cap on concurrent model calls with a FIFO queue: `acquire` resolves with a release function
 * once a slot is free, in the order callers asked; a caller whose signal aborts while waiting
 * leaves the queue and is rejected with the signal's reason, taking no slot.
 */
export class ModelCallLimiter {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(private max: number) {}

  /** Calls running now, and waiting for a slot. */
  get active(): number {
    return this.#active;
  }
  get waiting(): number {
    return this.#waiting.length;
  }

  /** A new cap; a higher one lets waiting calls start at once. */
  setMax(max: number): void {
    this.max = max;
    this.#drain();
  }

  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.max && this.#waiting.length === 0) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#active++;
        resolve(this.#releaser());
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(grant);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      this.#drain();
    };
  }

  #drain(): void {
    while (this.#active < this.max && this.#waiting.length > 0) this.#waiting.shift()!();
  }
}

let shared: ModelCallLimiter | undefined;

/** The process's one limiter, shared by every model (a sub-agent's too); `max` is the configured cap. */
export function processModelCallLimiter(max = DEFAULT_MAX_CONCURRENT_MODEL_CALLS): ModelCallLimiter {
  if (!shared) shared = new ModelCallLimiter(max);
  else shared.setMax(max);
  return shared;
}
