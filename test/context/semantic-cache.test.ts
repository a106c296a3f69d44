import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine, createSemanticCache, type SemanticCacheEntry } from '../../src/context/semantic-cache.js';
import type { Embedder } from '../../src/model/embedder.js';
import { testEmbedder } from './context-test-kit.js';

const tools = ['read_file', 'bash'];
const context = 'You are a coding agent.';
const stored = 'how do I read the contents of a file in node';
const paraphrase = 'how can I read the content of a file with node';
const unrelated = 'what will the weather be like in Paris tomorrow';

describe('semantic cache', () => {
  let embedder: Embedder;
  let similarity: number;

  beforeAll(async () => {
    embedder = testEmbedder();
    const [a, b] = await embedder.embed([stored, paraphrase]);
    similarity = cosine(a, b);
  });
  afterAll(async () => {
    await embedder?.close();
  });

  it('returns the stored answer for a paraphrase above the threshold and not below it', async () => {
    // The paraphrase must be close but not identical, or the test proves nothing.
    expect(similarity).toBeGreaterThan(0.8);
    expect(similarity).toBeLessThan(0.999);
    const above = createSemanticCache({ embedder, threshold: similarity - 0.02 });
    await above.store({ prompt: stored, tools, context }, 'use fs.readFile');
    const hit = await above.lookup({ prompt: paraphrase, tools, context });
    expect(hit?.entry.answer).toBe('use fs.readFile');
    expect(hit?.similarity).toBeCloseTo(similarity, 5);
    expect(await above.lookup({ prompt: unrelated, tools, context })).toBeUndefined();

    const below = createSemanticCache({ embedder, threshold: similarity + 0.02 });
    await below.store({ prompt: stored, tools, context }, 'use fs.readFile');
    expect(await below.lookup({ prompt: paraphrase, tools, context })).toBeUndefined();
    expect((await below.lookup({ prompt: stored, tools, context }))?.similarity).toBe(1);
  });

  it('misses when the tools or the context differ, whatever the similarity', async () => {
    const cache = createSemanticCache({ embedder, threshold: 0.5 });
    await cache.store({ prompt: stored, tools, context }, 'answer');
    expect(await cache.lookup({ prompt: stored, tools: [...tools].reverse(), context })).toBeDefined();
    expect(await cache.lookup({ prompt: stored, tools: ['read_file'], context })).toBeUndefined();
    expect(await cache.lookup({ prompt: stored, tools, context: 'You are a poet.' })).toBeUndefined();
  });

  it('expires entries after the ttl', async () => {
    let now = 1_000;
    const cache = createSemanticCache({ embedder, ttlMs: 100, now: () => now });
    await cache.store({ prompt: stored, tools, context }, 'answer');
    now += 50;
    expect(await cache.lookup({ prompt: stored, tools, context })).toBeDefined();
    now += 100;
    expect(await cache.lookup({ prompt: stored, tools, context })).toBeUndefined();
    expect(cache.entries()).toEqual([]);
  });

  it('persists entries through onPersist and serves them again from initialEntries', async () => {
    let persisted: SemanticCacheEntry[] = [];
    const first = createSemanticCache({ embedder, threshold: 0.8, onPersist: (entries) => void (persisted = entries) });
    await first.store({ prompt: stored, tools, context }, 'use fs.readFile');
    await first.flush();
    expect(persisted).toHaveLength(1);
    const restored = JSON.parse(JSON.stringify(persisted)) as SemanticCacheEntry[];
    const second = createSemanticCache({ embedder, threshold: 0.8, initialEntries: restored });
    expect((await second.lookup({ prompt: paraphrase, tools, context }))?.entry.answer).toBe('use fs.readFile');
  });

  it('never divides by zero on vectors without signal', () => {
    expect(cosine([0, 0], [1, 0])).toBe(0);
    expect(cosine([], [])).toBe(0);
  });
});
