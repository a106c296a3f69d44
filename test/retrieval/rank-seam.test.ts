import { describe, expect, it } from 'vitest';
import { openHybridIndex } from '../../src/retrieval/hybrid-index.js';
import { rankRequest, type RankRequest, type RequestEvidence } from '../../src/retrieval/rank-request.js';
import type { IndexDocument } from '../../src/retrieval/search-index.js';

const tool = (name: string, description: string): IndexDocument => ({ id: `tool:${name}`, kind: 'tool', namespace: name, fields: { name, description } });
const CATALOG = [
  tool('search_news', 'Search the latest news headlines.'),
  tool('weather_forecast', 'The weather forecast for a city.'),
  tool('read_file', 'Read a file from disk.'),
];
const REQUEST = 'find the latest news headlines, then check the weather forecast';

async function searchWith(rank?: RankRequest): Promise<string[]> {
  const index = await openHybridIndex({ path: ':memory:', ...(rank ? { rank } : {}) });
  try {
    for (const document of CATALOG) await index.sync(document.namespace, [document]);
    return (await index.search(REQUEST, { limit: 3, mode: 'bm25' })).map((hit) => hit.id);
  } finally {
    index.close();
  }
}

describe('the ranking seam (openHybridIndex({ rank }))', () => {
  it('hands the rank function the evidence of the request and its steps, and returns its order', async () => {
    let seen: RequestEvidence | undefined;
    const reversed: RankRequest = async (evidence, context) => {
      seen = evidence;
      const shipped = await rankRequest(evidence, context);
      return [...shipped].reverse();
    };
    const shipped = await searchWith();
    expect(shipped.length).toBeGreaterThan(1);
    expect(await searchWith(reversed)).toEqual([...shipped].reverse());
    expect(seen?.texts).toEqual([REQUEST, 'find the latest news headlines', 'then check the weather forecast']);
    // BM25 ran for every text (bm25 mode: no dense evidence).
    expect(seen?.lexical).toHaveLength(3);
    expect(seen?.dense).toEqual([]);
  });

  it('lets the rank function gather evidence for other texts through the index', async () => {
    const byFile: RankRequest = async (_evidence, context) => {
      const other = await context.gather(['read a file']);
      return other.lexical[0].map((hit) => [hit.rowid, hit.score] as [number, number]);
    };
    expect(await searchWith(byFile)).toEqual(['tool:read_file']);
  });
});
