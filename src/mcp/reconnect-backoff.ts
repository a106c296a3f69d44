export interface ReconnectPolicy {
  initialDelayMs?: number;
  maxDelayMs?: number;
  maxAttempts?: number;
}

/**
 * When to try a lost MCP server again: capped exponential backoff (250 ms doubling up to
 * 30 s, 8 attempts by default), one retry pending at a time, reset by a successful connect.
 * A pending retry never keeps the process alive on its own.
 */
export class ReconnectBackoff {
  private timer: NodeJS.Timeout | undefined;
  private attempts = 0;

  constructor(private readonly policy: ReconnectPolicy = {}) {}

  /** A retry is scheduled and not yet run. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  /** Schedules `retry`; returns whether one is (now or already) scheduled, false once attempts are spent. */
  schedule(retry: () => void): boolean {
    if (this.timer) return true;
    const { initialDelayMs = 250, maxDelayMs = 30_000, maxAttempts = 8 } = this.policy;
    if (this.attempts >= maxAttempts) return false;
    const delay = Math.min(initialDelayMs * 2 ** this.attempts, maxDelayMs);
    this.attempts += 1;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      retry();
    }, delay);
    this.timer.unref();
    return true;
  }

  /** Drops a pending retry (a connect started by hand, or close). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Connected: the next loss starts from the first delay again. */
  reset(): void {
    this.attempts = 0;
  }
}
