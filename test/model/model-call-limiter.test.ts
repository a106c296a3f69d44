import { describe, expect, it } from 'vitest';
import { ModelCallLimiter } from '../../src/model/model-call-limiter.js';

describe('ModelCallLimiter', () => {
  it('runs at most `max` at once and lets the waiting ones in first come, first served', async () => {
    const limiter = new ModelCallLimiter(2);
    const first = await limiter.acquire();
    const second = await limiter.acquire();
    const order: string[] = [];
    const third = limiter.acquire().then((release) => (order.push('third'), release));
    const fourth = limiter.acquire().then((release) => (order.push('fourth'), release));
    expect([limiter.active, limiter.waiting]).toEqual([2, 2]);
    first();
    first(); // Releasing twice frees one slot only.
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
    expect([limiter.active, limiter.waiting]).toEqual([0, 0]);
  });

  it('a call aborted while it waits leaves the line with the abort reason and takes no slot', async () => {
    const limiter = new ModelCallLimiter(1);
    const running = await limiter.acquire();
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal);
    const next = limiter.acquire();
    controller.abort(new Error('turn cancelled'));
    await expect(aborted).rejects.toThrow('turn cancelled');
    expect(limiter.waiting).toBe(1);
    running();
    (await next)();
    expect(limiter.active).toBe(0);
    await expect(limiter.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});
