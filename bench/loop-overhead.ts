import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { createAgent } from '../src/agent/create-agent.js';
import { configSchema } from '../src/config/schema.js';
import { defineTool } from '../src/tools/define-tool.js';
import { textResult } from '../src/tools/tool-result.js';
import { instantStream, instantTextStream } from '../src/model/instant-stream.js';
import { median, percentile } from './stats.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/**
 * The loop's own cost per turn: an instant scripted model (one tool call, then an answer)
 * and a no-op tool, so what is measured is the loop, the AI SDK step, policy and SQLite writes.
 */
export async function benchLoopOverhead(turns = 300): Promise<Record<string, number>> {
  let call = 0;
  const model = new MockLanguageModelV3({
    doStream: async () => {
      const even = call++ % 2 === 0;
      return {
        stream: even
          ? instantStream([
              { type: 'stream-start', warnings: [] },
              { type: 'tool-call', toolCallId: `c${call}`, toolName: 'noop', input: '{"value":"x"}' },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
            ])
          : instantTextStream('done', { tokens: 1 }),
      };
    },
  });
  const noop = defineTool({
    name: 'noop',
    description: 'does nothing',
    parameters: z.object({ value: z.string() }),
    risk: 'read',
    execute: async () => textResult('ok'),
  });
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-bench-loop-'));
  const agent = createAgent({ config: configSchema.parse({}), model, tools: [noop] });
  const session = await agent.sessions.create({ cwd });
  const times: number[] = [];
  for (let i = 0; i < turns + 20; i++) {
    const started = performance.now();
    for await (const event of agent.process({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'go' }] })) void event;
    if (i >= 20) times.push(performance.now() - started); // the first turns warm up the JIT
  }
  await agent.stop();
  return { loopTurnWithOneToolMedianMs: median(times), loopTurnWithOneToolP99Ms: percentile(times, 99) };
}
