import { describe, expect, it } from 'vitest';
import { countingEmbedder, createTestEmbedder } from './test-embedder.js';
import { openHybridIndex } from '../../src/retrieval/hybrid-index.js';
import type { IndexDocument } from '../../src/retrieval/search-index.js';
import type { TuningOverrides } from '../../src/retrieval/retrieval-tuning.js';

const tool = (namespace: string, name: string, description: string): IndexDocument => ({
  id: `${namespace}__${name}`,
  kind: 'tool',
  namespace,
  fields: { name, description, group: namespace },
});

// One step's words (news) outnumber the other's (weather), so the whole request's ranking fills
// the first slots with news tools from several servers.
const CATALOG = [
  tool('news-a', 'search_news', 'Search the latest news headlines and trending news stories.'),
  tool('news-b', 'news_headlines', 'Latest news headlines, trending news stories and breaking news.'),
  tool('news-c', 'trending_news', 'Trending news stories and the latest news headlines by topic.'),
  tool('news-d', 'news_feed', 'A feed of the latest news headlines and trending stories.'),
  tool('news-e', 'latest_stories', 'The latest trending stories and news headlines.'),
  tool(
    'weather',
    'city_conditions',
    'Conditions in a city: temperature, wind, humidity, rain, air pressure, sunrise and sunset, with hourly detail, alerts and the weather outlook.',
  ),
];

// Unrelated tools, so the news words are not in most documents (BM25 would weigh them ~0).
const FILLER = Array.from({ length: 20 }, (_, i) => tool(`files-${i}`, `read_file_${i}`, `Read a file from disk, variant ${i}.`));

const REQUEST = 'Find the latest news headlines and trending news stories, then check the weather';
// The news step has fewer words here, so the whole request already ranks the weather tool fifth.
const SHORTER = 'Find the latest news headlines, then check the weather in the city';

async function search(request: string, steps: TuningOverrides['steps']): Promise<string[]> {
  const index = await openHybridIndex({ path: ':memory:', tuning: { steps } });
  try {
    for (const document of [...CATALOG, ...FILLER]) await index.sync(document.namespace, [document]);
    return (await index.search(request, { limit: 4, mode: 'bm25' })).map((hit) => hit.id);
  } finally {
    index.close();
  }
}

describe('multi-step requests (tuning.steps)', () => {
  // The round-robin merge measured before the bonus: test/eval/ranking-experiments.test.ts.
  it('the step bonus (the default) lifts the weather step only as far as the whole request finds it plausible', async () => {
    expect(await search(SHORTER, { maxSteps: 0 })).not.toContain('weather__city_conditions');
    expect(await search(SHORTER, {})).toContain('weather__city_conditions');
    // Far below the news tools in the whole request: a bonus of 0.15 of the best score is not enough.
    expect(await search(REQUEST, {})).not.toContain('weather__city_conditions');
  });

  it('embeds the request and all its steps in one call', { timeout: 60_000 }, async () => {
    const inner = createTestEmbedder();
    const embedder = countingEmbedder(inner);
    const index = await openHybridIndex({ path: ':memory:', embedder });
    try {
      for (const document of [...CATALOG, ...FILLER]) await index.sync(document.namespace, [document]);
      embedder.calls = 0;
      embedder.texts = [];
      const hits = await index.search('Find the latest news headlines, then check the weather and read a file from disk', { limit: 4 });
      expect(hits).toHaveLength(4);
      expect(embedder.calls).toBe(1);
      // The whole request and its three steps.
      expect(embedder.texts).toHaveLength(4);
    } finally {
      index.close();
      await inner.close();
    }
  });
});
