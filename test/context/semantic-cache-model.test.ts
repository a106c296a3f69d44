import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.js';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { configSchema } from '../../src/config/schema.js';
import { createSemanticCache } from '../../src/context/semantic-cache.js';
import { withSemanticCache } from '../../src/context/semantic-cache-model.js';
import { createEmbedder } from '../../src/model/embedder.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { requireTestModel } from '../model/test-models.js';

const embedder = createEmbedder({ model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 });
afterAll(async () => {
  await embedder.close();
});

async function ask(agent: ReturnType<typeof createAgent>, cwd: string, text: string): Promise<string> {
  const session = await agent.sessions.create({ cwd });
  const events: AgentOutput[] = [];
  for await (const event of agent.process({ sessionId: session.sessionId, prompt: [{ type: 'text', text }] })) events.push(event);
  return events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
}

/** The semantic cache in front of the model, inside the real agent loop. */
describe('semantic cache in front of the model', () => {
  it('answers a paraphrase above the threshold from the cache, and not one below it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-cache-'));
    const model = scriptedModel([{ text: 'Use fs.readFile.' }, { text: 'It is sunny.' }, { text: 'Use fs.readFile (strict).' }, { text: 'Use fs.readFile again.' }]);
    // GloVe scores this paraphrase pair a little over 0.8 (see semantic-cache.test.ts), so 0.8 is the cut here.
    const cache = createSemanticCache({ embedder, threshold: 0.8 });
    const agent = createAgent({ config: configSchema.parse({}), model: withSemanticCache(model, cache), tools: [] });
    expect(await ask(agent, cwd, 'how do I read the contents of a file in node')).toBe('Use fs.readFile.');
    expect(await ask(agent, cwd, 'how can I read the content of a file with node')).toBe('Use fs.readFile.');
    expect(model.calls).toHaveLength(1);
    expect(await ask(agent, cwd, 'what will the weather be like in Paris tomorrow')).toBe('It is sunny.');
    expect(model.calls).toHaveLength(2);
    await agent.stop();

    // Below the threshold the paraphrase goes to the model.
    const strict = createAgent({
      config: configSchema.parse({}),
      model: withSemanticCache(model, createSemanticCache({ embedder, threshold: 0.999 })),
      tools: [],
    });
    await ask(strict, cwd, 'how do I read the contents of a file in node');
    expect(await ask(strict, cwd, 'how can I read the content of a file with node')).toBe('Use fs.readFile again.');
    expect(model.calls).toHaveLength(4);
    await strict.stop();
  });
});
