import { describe, expect, it } from 'vitest';
import { usageUpdate } from '../../../src/adapters/acp/acp-session-info.js';

const usage = { type: 'usage' as const, sessionId: 's', inputTokens: 100, outputTokens: 20, totalTokens: 120, contextTokens: 120 };

describe('usage_update', () => {
  it('carries the prompt cache reads and writes in _meta when the cache did something (ACP v1 has no field for them)', () => {
    const update = usageUpdate({ contextWindow: 1000 }, { ...usage, cacheReadTokens: 80, cacheWriteTokens: 0 });
    expect(update).toEqual({ sessionUpdate: 'usage_update', used: 120, size: 1000, _meta: { cacheReadTokens: 80, cacheWriteTokens: 0 } });
  });

  it('adds nothing when the provider reports no cache activity', () => {
    expect(usageUpdate({ contextWindow: 1000 }, { ...usage, cacheReadTokens: 0, cacheWriteTokens: 0 })).toEqual({ sessionUpdate: 'usage_update', used: 120, size: 1000 });
    expect(usageUpdate({ contextWindow: 1000 }, usage)).toEqual({ sessionUpdate: 'usage_update', used: 120, size: 1000 });
  });
});
