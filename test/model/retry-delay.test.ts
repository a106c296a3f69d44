import { describe, expect, it } from 'vitest';
import { backoffMs, retryableStatus, retryAfterMs } from '../../src/model/retry-delay.js';

describe('retry delays', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads retry-after-ms first, then retry-after in seconds or as an HTTP date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), now)).toBe(7000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });

  it('backs off exponentially, half of each step random, capped', () => {
    expect([1, 2, 3].map((retry) => backoffMs(retry, () => 0))).toEqual([500, 1000, 2000]);
    expect([1, 2, 3].map((retry) => backoffMs(retry, () => 1))).toEqual([1000, 2000, 4000]);
    expect(backoffMs(20, () => 1)).toBe(30_000);
  });

  it('retries rate limits and server failures, never a refused request', () => {
    expect([429, 500, 502, 503, 504, 529, 408].every(retryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422, 501].some(retryableStatus)).toBe(false);
  });
});
