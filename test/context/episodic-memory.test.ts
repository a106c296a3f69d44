import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { createEpisodicExtension } from '../../src/context/episodic-extension.js';
import { createEpisodicMemory } from '../../src/context/episodic-memory.js';
import { EPISODE_SYSTEM, REFLECTION_SYSTEM } from '../../src/context/summarize-episode.js';
import { openHybridIndex, type HybridIndex } from '../../src/retrieval/hybrid-index.js';
import type { SearchIndex } from '../../src/retrieval/search-index.js';
import { createTestEmbedder } from '../retrieval/test-embedder.js';
import { routedModel } from '../agent/routed-mock-model.js';
import { collect, makeAgent, tempProject } from '../agent/agent-test-kit.js';

function modelWithMemory() {
  return routedModel((input) => {
    if (input.system.startsWith(EPISODE_SYSTEM)) {
      return { text: input.text.includes('deploy') ? 'The user configured the deploy script for staging with rsync.' : 'The user asked about lunch.' };
    }
    if (input.system.startsWith(REFLECTION_SYSTEM)) return { text: 'Next time, check the staging host first.' };
    return { text: 'OK.' };
  });
}

describe('episodic memory', () => {
  it('writes an episode after a turn (with reflection) and injects it into a later session, through the real hybrid index and embedder', async () => {
    const cwd = tempProject();
    const embedder = createTestEmbedder();
    const index: HybridIndex = await openHybridIndex({ path: ':memory:', embedder });
    try {
      const model = modelWithMemory();
      const config = { agent: { episodic: { enabled: true, inject: 2 }, reflection: true } };
      const agent = makeAgent(model, config, {
        extensions: [createEpisodicExtension({ config: configSchema.parse(config), model: async () => model, index: async () => index })],
      });
      const first = await agent.sessions.create({ cwd });
      await collect(agent, first.sessionId, 'set up the deploy script for staging');
      await collect(agent, first.sessionId, 'what is for lunch?');
      await waitForEpisodes(index, 2);
      const hits = await index.search('deploy to staging', { kinds: ['episode'], mode: 'dense' });
      expect(hits[0]!.document.fields.body).toContain('rsync');
      expect(hits[0]!.document.fields.body).toContain('Reflection: Next time, check the staging host first.');

      const second = await agent.sessions.create({ cwd });
      await collect(agent, second.sessionId, 'deploy the staging build again');
      const turnRequest = model.calls.filter((call) => !call.system.startsWith(EPISODE_SYSTEM) && !call.system.startsWith(REFLECTION_SYSTEM)).at(-1)!;
      expect(turnRequest.system).toContain('Episodes from earlier sessions');
      expect(turnRequest.system).toContain('deploy script for staging with rsync');
      // Episodes of the session itself are not injected back into it.
      const firstAgain = model.calls.filter((call) => call.text.includes('what is for lunch?') && !call.system.startsWith(EPISODE_SYSTEM))[0]!;
      expect(firstAgain.system).not.toContain('Episodes from earlier sessions');
    } finally {
      index.close();
      await embedder.close?.();
    }
  });

  it('is off the hot path: the turn ends before the summary is written; a failing summariser falls back to an extractive one', async () => {
    const index = await openHybridIndex({ path: ':memory:' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const memory = createEpisodicMemory({
      index: async () => index as SearchIndex,
      inject: 3,
      summarize: async () => {
        await gate;
        throw new Error('no model');
      },
    });
    const controller = new AbortController();
    const context = {
      sessionId: 's1',
      cwd: '/tmp',
      intent: 'rename the widget module',
      signal: controller.signal,
      runtime: undefined as never,
      emit: () => undefined,
      transcript: () => 'user: rename the widget module\nassistant: renamed widget to gadget',
    };
    await memory.onTurnEnd!(context, 'end_turn');
    expect(index.count()).toBe(0);
    release();
    await memory.idle();
    expect(index.count()).toBe(1);
    const [hit] = await index.search('widget', { kinds: ['episode'] });
    expect(hit!.document.fields.body).toContain('renamed widget to gadget');
    const prompt = await memory.systemPrompt!({ ...context, sessionId: 's2', intent: 'widget module' });
    expect(prompt).toContain('renamed widget to gadget');
    expect(await memory.systemPrompt!({ ...context, intent: 'widget module' })).toBeUndefined();
    await memory.close!();
    index.close();
  });
});

async function waitForEpisodes(index: HybridIndex, count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (index.count() < count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} episodes, found ${index.count()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
