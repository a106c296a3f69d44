const WINDOW_MS = 60_000;

/** A request refused by {@link perMinuteLimit}: when the oldest one counted leaves the window. */
export interface OverLimit {
  retryAfterMs: number;
}

/**
 * Counts requests per key (a session and a server) over the last minute: `take(key, limit)`
 * counts one and returns undefined, or, at the limit, counts nothing and says when to retry.
 * The one window of a server's sampling and its questions to the user.
 */
export function perMinuteLimit(now: () => number = Date.now): (key: string, limit: number) => OverLimit | undefined {
  const recent = new Map<string, number[]>();
  return (key, limit) => {
    const times = (recent.get(key) ?? []).filter((time) => now() - time < WINDOW_MS);
    recent.set(key, times);
    if (times.length >= limit) return { retryAfterMs: WINDOW_MS - (now() - times[0]!) };
    times.push(now());
    return undefined;
  };
}
