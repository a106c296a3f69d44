import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/model/embedder.js';
import { openHybridIndex, type HybridIndex } from '../../src/retrieval/hybrid-index.js';
import type { IndexDocument } from '../../src/retrieval/search-index.js';
import { openBenchIndex } from '../../bench/ranking-experiments/open-bench-index.js';
import { WordNeighbours } from '../../bench/ranking-experiments/word-neighbours.js';
import { countingEmbedder, createTestEmbedder } from '../retrieval/test-embedder.js';

let embedder: Embedder;

beforeAll(() => {
  embedder = createTestEmbedder();
});

afterAll(async () => {
  await embedder.close();
});

const options = { perTerm: 2, minSimilarity: 0.5, unknownOnly: true };

describe('WordNeighbours', () => {
  it('expands a word no document contains into the nearest catalog words', async () => {
    const neighbours = new WordNeighbours((texts) => embedder.embed(texts));
    await neighbours.refresh(1, () => ['Generate an image from a prompt.', 'Get the weather forecast for a city.', 'Read a file.']);
    const words = await neighbours.expand(['picture'], options);
    expect(words).toContain('image');
    expect(words).not.toContain('weather');
  });

  it('leaves words the catalog has, and inflections of the request words, alone', async () => {
    const neighbours = new WordNeighbours((texts) => embedder.embed(texts));
    await neighbours.refresh(1, () => ['Generate an image from a prompt.', 'List images and files.']);
    expect(await neighbours.expand(['image'], options)).toEqual([]);
    expect(await neighbours.expand(['image'], { ...options, unknownOnly: false })).not.toContain('images');
  });

  it('embeds the vocabulary once per catalog version, and only new words after a change', async () => {
    const counting = countingEmbedder(embedder);
    const neighbours = new WordNeighbours((texts) => counting.embed(texts));
    await neighbours.refresh(1, () => ['Read a file.']);
    const first = counting.texts.length;
    await neighbours.refresh(1, () => ['Read a file.']);
    expect(counting.texts.length).toBe(first);
    await neighbours.refresh(2, () => ['Read a file.', 'Delete a folder.']);
    expect(counting.texts.slice(first).sort()).toEqual(['delete', 'folder']);
  });
});

describe('query expansion in the hybrid index', () => {
  const tool = (name: string, description: string): IndexDocument => ({ id: name, kind: 'tool', namespace: name, fields: { name, description } });
  const catalog = [tool('generate_image', 'Generate an image from a text prompt.'), tool('get_weather', 'Current weather for a city.')];
  const scoreOf = async (index: HybridIndex, query: string, id: string) =>
    (await index.search(query, { limit: 10 })).find((hit) => hit.id === id)?.score ?? 0;

  it('lifts a tool whose words are neighbours of a request word it lacks, after the catalog gains it', async () => {
    const on = await openBenchIndex({ path: ':memory:', embedder, tuning: { expansion: { perTerm: 2 } } });
    const off = await openHybridIndex({ path: ':memory:', embedder });
    for (const index of [on, off]) await index.sync('get_weather', [catalog[1]]);
    // The vocabulary is built for the catalog as it is now: "image" is not in it yet.
    expect(await on.search('a picture', { limit: 1 })).toHaveLength(1);
    for (const index of [on, off]) await index.sync('generate_image', [catalog[0]]);
    expect(await scoreOf(on, 'a picture', 'generate_image')).toBeGreaterThan(await scoreOf(off, 'a picture', 'generate_image'));
    on.close();
    off.close();
  });
});
