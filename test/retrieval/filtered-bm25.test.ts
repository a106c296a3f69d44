import { describe, expect, it } from 'vitest';
import { openHybridIndex } from '../../src/retrieval/hybrid-index.js';
import type { IndexDocument } from '../../src/retrieval/search-index.js';

function tool(namespace: string, name: string, description: string): IndexDocument {
  return { id: `${namespace}__${name}`, kind: 'tool', namespace, fields: { name, description } };
}

describe('BM25 with a kind or namespace filter', () => {
  it('finds the filtered rows also when better matches outside the filter fill every page', async () => {
    const index = await openHybridIndex({ path: ':memory:' });
    // More better "weather forecast" matches in one namespace than the candidate depth (100) reads twice over, two weaker ones in another.
    await index.sync('loud', Array.from({ length: 250 }, (_, i) => tool('loud', `forecast_${i}`, 'weather forecast weather forecast')));
    await index.sync('quiet', [tool('quiet', 'notes', 'a weather note among other notes and things'), tool('quiet', 'log', 'forecast log of many entries')]);
    await index.sync('other', [tool('other', 'weather', 'current weather')]);

    const quiet = await index.search('weather forecast', { mode: 'bm25', limit: 2, namespaces: ['quiet'] });
    expect(quiet.map((hit) => hit.id).sort()).toEqual(['quiet__log', 'quiet__notes']);
    const prompts = await index.search('weather forecast', { mode: 'bm25', limit: 5, kinds: ['prompt'] });
    expect(prompts).toEqual([]);
    const unfiltered = await index.search('weather forecast', { mode: 'bm25', limit: 3 });
    expect(unfiltered.every((hit) => hit.id.startsWith('loud__'))).toBe(true);
    index.close();
  });
});
