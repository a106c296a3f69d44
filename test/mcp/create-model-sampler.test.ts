import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelSampler } from '../../src/mcp/create-model-sampler.js';
import { McpRegistry } from '../../src/mcp/mcp-registry.js';
import type { HybridIndex } from '../../src/retrieval/hybrid-index.js';
import { stdioConfig } from './fixture-servers.js';
import { openTestIndex, tempDir } from './registry-helpers.js';

let index: HybridIndex;
let registry: McpRegistry | undefined;
let cleanup: () => void;
beforeEach(async () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  index = await openTestIndex(temp.dir);
});
afterEach(async () => {
  await registry?.close();
  index.close();
  cleanup();
});

describe('createModelSampler', () => {
  it("answers a server's sampling request with the agent's model", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'forty-two' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 2, text: 2, reasoning: undefined },
        },
        warnings: [],
      }),
    });
    const sessions: Array<string | undefined> = [];
    registry = new McpRegistry({
      index,
      onSampling: createModelSampler({
        model: (context) => {
          sessions.push(context.sessionId);
          return model;
        },
        maxTokensCap: 20,
      }),
    });
    await registry.servers.add(stdioConfig('sampler'), { sessionId: 's9' });
    const result = await registry.tools.execute('mcp__sampler__sample', { prompt: 'meaning of life?' }, { sessionId: 's9' });
    expect(result.content).toEqual([{ type: 'text', text: 'model said: forty-two' }]);
    expect(sessions).toEqual(['s9']);
    const call = model.doGenerateCalls[0]!;
    expect(JSON.stringify(call.prompt)).toContain('meaning of life?');
    expect(call.maxOutputTokens).toBe(20);
  });
});
