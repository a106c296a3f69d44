import { describe, expect, it } from 'vitest';
import { diversifyRanking } from '../../bench/ranking-experiments/diversify-ranking.js';
import { EXPERIMENTS_OFF, splitBenchTuning } from '../../bench/ranking-experiments/experiment-tuning.js';
import { mergeRankings } from '../../bench/ranking-experiments/experimental-merge.js';
import { interleaveSteps } from '../../bench/ranking-experiments/interleave-steps.js';
import { openBenchIndex } from '../../bench/ranking-experiments/open-bench-index.js';
import { selectSteps, stepConfidence } from '../../bench/ranking-experiments/select-steps.js';
import { applyServerEvidence, namespaceCentroids } from '../../bench/ranking-experiments/server-evidence.js';
import type { IndexDocument } from '../../src/retrieval/search-index.js';
import { VectorMatrix } from '../../src/retrieval/vector-matrix.js';

type Ranked = [number, number][];

describe('splitBenchTuning', () => {
  it('passes shipped overrides to the index and turns experiments on only when one is named', () => {
    expect(splitBenchTuning({ denseWeight: 1, steps: { maxSteps: 0 } })).toMatchObject({ tuning: { denseWeight: 1, steps: { maxSteps: 0 } }, active: false });
    const learned = splitBenchTuning({ fusion: { method: 'learned' }, steps: { merge: 'interleave', bonus: 0.2 } });
    expect(learned.tuning).toEqual({ fusion: {}, steps: { bonus: 0.2 } });
    expect(learned.experiments).toMatchObject({ learned: true, steps: { merge: 'interleave' } });
    expect(learned.active).toBe(true);
    expect(splitBenchTuning({}).experiments).toEqual(EXPERIMENTS_OFF);
  });
});

describe('selectSteps', () => {
  const clear: Ranked = [[1, 2], [2, 1.9], [3, 1], [4, 0.9], [5, 0.8], [6, 0.7]];
  const flat: Ranked = [[1, 2], [2, 1.99], [3, 1.98], [4, 1.97], [5, 1.96], [6, 1.95]];

  it('measures how far the best score stands above the score at rank `at`', () => {
    expect(stepConfidence(clear, 5)).toBeCloseTo(0.6);
    expect(stepConfidence(flat, 5)).toBeCloseTo(0.02);
    expect(stepConfidence([], 5)).toBe(0);
  });

  it('keeps confident steps, and none when fewer than two remain', () => {
    expect(selectSteps([clear, clear, flat], { at: 5, minConfidence: 0.3, minSteps: 2 })).toEqual([clear, clear]);
    expect(selectSteps([clear, flat], { at: 5, minConfidence: 0.3, minSteps: 2 })).toEqual([]);
  });
});

describe('diversifyRanking', () => {
  // 1, 2 and 3 are near-duplicates; 4 is different.
  const similar = new Set(['1-2', '1-3', '2-3']);
  const similarity = (a: number, b: number) => (similar.has(`${Math.min(a, b)}-${Math.max(a, b)}`) ? 0.95 : 0.3);
  const ranked: Ranked = [[1, 1], [2, 0.95], [3, 0.9], [4, 0.8]];

  it('moves a distinct document above the lookalikes of the first', () => {
    const merged = diversifyRanking(ranked, 4, similarity, { lambda: 0.5, depth: 10, threshold: 0.75, multiStepOnly: false });
    expect(merged.map(([rowid]) => rowid)).toEqual([1, 4, 2, 3]);
    const scores = merged.map(([, score]) => score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('keeps the order at lambda 0', () => {
    expect(diversifyRanking(ranked, 4, similarity, { lambda: 0, depth: 10, threshold: 0.75, multiStepOnly: false })).toEqual(ranked);
  });
});

describe('server evidence', () => {
  const matrix = new VectorMatrix(2, [
    { rowid: 1, vector: Float32Array.from([1, 0]) },
    { rowid: 2, vector: Float32Array.from([0.8, 0.6]) },
    { rowid: 3, vector: Float32Array.from([0, 1]) },
    { rowid: 4, vector: Float32Array.from([0.6, 0.8]) },
    { rowid: 5, vector: Float32Array.from([1, 0]) },
  ]);
  const namespaceOf = (rowid: number) => ({ 1: 'maps', 2: 'maps', 3: 'chat', 4: 'chat', 5: 'lone' })[rowid];

  it('has a centroid only for namespaces with enough documents', () => {
    const centroids = namespaceCentroids(matrix, [1, 2, 3, 4, 5], namespaceOf, 2);
    expect([...centroids.keys()].sort()).toEqual(['chat', 'maps']);
    expect(Math.hypot(...(centroids.get('maps') ?? []))).toBeCloseTo(1);
  });

  it("lifts each document by its namespace's fit relative to the best namespace", () => {
    const fits: Record<string, number> = { maps: 0.9, chat: 0.3 };
    const lifted = applyServerEvidence(new Map([[1, 1], [3, 1], [5, 1]]), namespaceOf, (ns) => fits[ns], { weight: 0.5, minDocs: 2 });
    expect(lifted.get(1)).toBeCloseTo(1.5);
    expect(lifted.get(3)).toBeCloseTo(1 + 0.5 / 3);
    expect(lifted.get(5)).toBeCloseTo(1);
  });
});

describe('interleaveSteps', () => {
  const whole: Ranked = [[1, 0.9], [2, 0.8], [3, 0.7]];
  const stepA: Ranked = [[2, 0.95], [4, 0.5]];
  const stepB: Ranked = [[5, 0.6], [1, 0.4]];

  it("gives every ranking its best unseen hit before any ranking's second", () => {
    expect(interleaveSteps([whole, stepA, stepB], 10).map(([rowid]) => rowid)).toEqual([1, 2, 5, 3, 4]);
  });

  it('lets the whole request lead, stops at the limit and never lets scores rise', () => {
    const merged = interleaveSteps([whole, stepA, stepB], 4, { lead: 2 });
    expect(merged.map(([rowid]) => rowid)).toEqual([1, 2, 3, 4]);
    const scores = merged.map(([, score]) => score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });
});

describe('mergeRankings (experimental step merges)', () => {
  const whole: Ranked = [[1, 10], [2, 9], [3, 8], [4, 7], [5, 6]];
  const stepA: Ranked = [[5, 3], [1, 2], [2, 1]];
  const stepB: Ranked = [[1, 3], [2, 2.9], [3, 2.8]];
  const tuning = (steps: Partial<typeof EXPERIMENTS_OFF.steps>) => ({ steps: { ...EXPERIMENTS_OFF.steps, ...steps }, diversity: EXPERIMENTS_OFF.diversity });

  it('merges steps by bonus and round by round on request', () => {
    expect(mergeRankings([whole, stepA, stepB], 3, tuning({ bonus: 0.5, bonusDepth: 1 }), undefined).map(([rowid]) => rowid)).toEqual([1, 5, 2]);
    expect(mergeRankings([whole, stepA, stepB], 3, tuning({ merge: 'interleave' }), undefined).map(([rowid]) => rowid)).toEqual([1, 5, 2]);
  });

  it('ignores steps whose own ranking is not confident', () => {
    const flat: Ranked = [[5, 3], [4, 2.99], [3, 2.98], [2, 2.97], [1, 2.96]];
    const merged = mergeRankings([whole, flat, stepB], 3, tuning({ bonus: 0.5, bonusDepth: 1, minConfidence: 0.2 }), undefined);
    expect(merged.map(([rowid]) => rowid)).toEqual([1, 2, 3]);
  });
});

const tool = (namespace: string, name: string, description: string): IndexDocument => ({
  id: `${namespace}__${name}`,
  kind: 'tool',
  namespace,
  fields: { name, description, group: namespace },
});

describe('the experiments through the index’s rank seam', () => {
  it('interleaving gives the weather step a slot among the first hits where the shipped bonus does not', async () => {
    // One step's words (news) outnumber the other's (weather): the whole request fills the first slots with news tools.
    const news = [
      tool('news-a', 'search_news', 'Search the latest news headlines and trending news stories.'),
      tool('news-b', 'news_headlines', 'Latest news headlines, trending news stories and breaking news.'),
      tool('news-c', 'trending_news', 'Trending news stories and the latest news headlines by topic.'),
      tool('news-d', 'news_feed', 'A feed of the latest news headlines and trending stories.'),
      tool('news-e', 'latest_stories', 'The latest trending stories and news headlines.'),
    ];
    const weather = tool(
      'weather',
      'city_conditions',
      'Conditions in a city: temperature, wind, humidity, rain, air pressure, sunrise and sunset, with hourly detail, alerts and the weather outlook.',
    );
    const filler = Array.from({ length: 20 }, (_, i) => tool(`files-${i}`, `read_file_${i}`, `Read a file from disk, variant ${i}.`));
    const request = 'Find the latest news headlines and trending news stories, then check the weather';
    const ids = async (steps: { merge?: 'interleave' | 'bonus' }) => {
      const index = await openBenchIndex({ path: ':memory:', tuning: { steps } });
      try {
        for (const document of [...news, weather, ...filler]) await index.sync(document.namespace, [document]);
        return (await index.search(request, { limit: 4, mode: 'bm25' })).map((hit) => hit.id);
      } finally {
        index.close();
      }
    };
    expect(await ids({})).not.toContain('weather__city_conditions');
    const interleaved = await ids({ merge: 'interleave' });
    expect(interleaved).toContain('weather__city_conditions');
    expect(interleaved).toHaveLength(4);
  });
});
