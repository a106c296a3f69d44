import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wrapLanguageModel } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { textResult } from '../../src/tools/tool-result.js';
import { createAgent } from '../../src/agent/create-agent.js';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { configSchema } from '../../src/config/schema.js';
import { createLlamaCppLanguageModel } from '../../src/model/llama-cpp-language-model.js';
import { requireTestModel } from './test-models.js';

/**
 * The local provider through the real agent loop, with the tiny random model: gibberish
 * text, but real loading, streaming, grammar-constrained tool calls and execution.
 */
const model = createLlamaCppLanguageModel({ model: requireTestModel('PLAITED_TEST_CHAT_MODEL'), threads: 1, contextSize: 4096 });
afterAll(async () => {
  await model.close();
});

// Bounded arguments (an enum): a random model fills free strings forever, but the grammar
// closes an enum after a few tokens, so the call is complete and must pass the schema.
const picked: string[] = [];
const pickColor = defineTool({
  name: 'pick_color',
  description: 'Pick a color',
  parameters: z.object({ color: z.enum(['red', 'green', 'blue']) }),
  risk: 'read',
  async execute(args) {
    picked.push(args.color);
    return textResult(`picked ${args.color}`);
  },
});

async function run(agentModel: Parameters<typeof createAgent>[0]['model'], text: string) {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-llama-loop-'));
  writeFileSync(join(cwd, 'hello.txt'), 'hello');
  const agent = createAgent({ config: configSchema.parse({ agent: { maxSteps: 2, maxOutputTokens: 256 } }), model: agentModel, tools: [pickColor] });
  const session = await agent.sessions.create({ cwd });
  const events: AgentOutput[] = [];
  for await (const event of agent.process({ sessionId: session.sessionId, prompt: [{ type: 'text', text }] })) {
    events.push(event);
    if (event.type === 'permission-request') event.respond({ outcome: 'selected', optionId: 'reject-once' });
  }
  await agent.stop();
  return events;
}

describe('llama.cpp provider in the agent loop', () => {
  it('streams a turn of text and ends it', async () => {
    const events = await run(model, 'Say hello.');
    expect(events.some((event) => event.type === "text-delta"), JSON.stringify(events.slice(-3))).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'turn-end' });
  });

  it('emits a grammar-constrained tool call that the loop validates and executes', async () => {
    // A weak model never chooses a tool on its own; requiring one on the first step makes the
    // grammar produce a call, which must then pass the tool's schema and run.
    let calls = 0;
    const requireToolFirst = wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: 'v3',
        transformParams: async ({ params }) => (calls++ === 0 ? { ...params, toolChoice: { type: 'required' } } : params),
      },
    });
    const events = await run(requireToolFirst, 'List the files.');
    const call = events.find((event) => event.type === 'tool-call');
    expect(call, JSON.stringify(events.slice(-3))).toBeDefined();
    const finished = events.find((event) => event.type === 'tool-call-update' && event.status === 'completed');
    expect(finished).toBeDefined();
    expect(picked.length).toBeGreaterThan(0);
    expect(['red', 'green', 'blue']).toContain(picked[0]);
    expect(events.at(-1)).toMatchObject({ type: 'turn-end' });
  });
});
