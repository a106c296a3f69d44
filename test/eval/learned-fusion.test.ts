import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/model/embedder.js';
import { FUSION_FEATURES, fusionCandidates } from '../../bench/ranking-experiments/fusion-features.js';
import { fusionScore, learnedFusion, TRAINED_FUSION_MODEL, type FusionModel } from '../../bench/ranking-experiments/learned-fusion.js';
import { openBenchIndex } from '../../bench/ranking-experiments/open-bench-index.js';
import { RetrievalError } from '../../src/retrieval/retrieval-error.js';
import { byNamespace, fixtureCatalog } from '../retrieval/fixture-catalog.js';
import { createTestEmbedder } from '../retrieval/test-embedder.js';

const at = (name: (typeof FUSION_FEATURES)[number]) => FUSION_FEATURES.indexOf(name);
const model = (weights: Partial<Record<(typeof FUSION_FEATURES)[number], number>>): FusionModel => ({
  features: [...FUSION_FEATURES],
  weights: FUSION_FEATURES.map((name) => weights[name] ?? 0),
  bias: 0,
});

describe('fusionCandidates', () => {
  // BM25 finds 1 (by its name) and 2 (by its description); dense ranks 3, then 2, and scores 1 low.
  const lexical = [
    { rowid: 1, score: 8, name: 6, description: 0, args: 0 },
    { rowid: 2, score: 4, name: 0, description: 3, args: 1 },
  ];
  const dense = [
    { rowid: 3, score: 0.8 },
    { rowid: 2, score: 0.6 },
    { rowid: 1, score: 0.2 },
  ];
  const byRow = new Map(fusionCandidates(lexical, dense).map((candidate) => [candidate.rowid, candidate.features]));

  it('scores the union of both lists, each feature relative to the request’s own best', () => {
    expect([...byRow.keys()].sort()).toEqual([1, 2, 3]);
    expect(byRow.get(1)![at('bm25')]).toBeCloseTo(1);
    expect(byRow.get(2)![at('bm25')]).toBeCloseTo(0.5);
    expect(byRow.get(3)![at('bm25')]).toBe(0);
    expect(byRow.get(3)![at('dense')]).toBeCloseTo(1);
    expect(byRow.get(2)![at('dense')]).toBeCloseTo(0.75);
    expect(byRow.get(1)![at('bm25Name')]).toBeCloseTo(1);
    expect(byRow.get(2)![at('bm25Name')]).toBe(0);
    expect(byRow.get(2)![at('bm25Description')]).toBeCloseTo(1);
    expect(byRow.get(2)![at('bm25Reciprocal')]).toBeCloseTo(1 / 2);
    expect(byRow.get(3)![at('denseReciprocal')]).toBeCloseTo(1);
    expect(byRow.get(3)![at('inBm25')]).toBe(0);
  });

  it('carries request-level agreement and BM25 gap into its interaction features', () => {
    // Both BM25 hits are in the dense top 10: agreement 1; gap 1 − 4/8 = 0.5.
    expect(byRow.get(2)![at('denseByAgreement')]).toBeCloseTo(0.75);
    expect(byRow.get(1)![at('bm25ByGap')]).toBeCloseTo(0.5);
    expect([...byRow.values()].every((features) => features.every(Number.isFinite))).toBe(true);
  });

  it('has no candidates for empty lists, and no NaN when every score is 0', () => {
    expect(fusionCandidates([], [])).toEqual([]);
    const [only] = fusionCandidates([{ rowid: 9, score: 0 }], [{ rowid: 9, score: 0 }]);
    expect([...only.features].every(Number.isFinite)).toBe(true);
    expect(only.features[at('bm25')]).toBe(0);
    expect(only.features[at('dense')]).toBe(0);
  });
});

describe('learnedFusion', () => {
  const lexical = [{ rowid: 1, score: 10 }, { rowid: 2, score: 5 }];
  const dense = [{ rowid: 2, score: 0.9 }, { rowid: 1, score: 0.3 }];

  it('with the score fusion weights (BM25 1, dense 1.3) ranks exactly as score fusion does', () => {
    const scores = learnedFusion(lexical, dense, model({ bm25: 1, dense: 1.3 }));
    expect(scores.get(1)).toBeCloseTo(1 + 1.3 * (0.3 / 0.9));
    expect(scores.get(2)).toBeCloseTo(0.5 + 1.3);
  });

  it('scores a candidate no ranker found as 0 (the logit without its bias)', () => {
    expect(fusionScore(new Float64Array(FUSION_FEATURES.length), { ...model({ bm25: 2 }), bias: -3 })).toBe(0);
  });

  it('shows the observer every candidate before scoring', () => {
    const seen: number[] = [];
    learnedFusion(lexical, dense, TRAINED_FUSION_MODEL, (candidates) => seen.push(...candidates.map((candidate) => candidate.rowid)));
    expect(seen.sort()).toEqual([1, 2]);
  });

  it('rejects a model trained on other features with INVALID_FUSION_MODEL', () => {
    const stale = { features: ['bm25', 'dense'], weights: [1, 1], bias: 0 };
    expect(() => learnedFusion(lexical, dense, stale)).toThrow(expect.objectContaining({ code: 'INVALID_FUSION_MODEL' }));
  });

  it('ships a model for the current features', () => {
    expect(TRAINED_FUSION_MODEL.features).toEqual([...FUSION_FEATURES]);
    expect(TRAINED_FUSION_MODEL.weights.every(Number.isFinite)).toBe(true);
  });
});

describe('learned fusion in the hybrid index', () => {
  let embedder: Embedder;
  beforeAll(() => {
    embedder = createTestEmbedder();
  });
  afterAll(async () => {
    await embedder.close();
  });

  it('ranks through the real index with per-field BM25, and fails a search with a stale model', async () => {
    const index = await openBenchIndex({ path: ':memory:', embedder, tuning: { fusion: { method: 'learned' } } });
    for (const [namespace, group] of byNamespace(fixtureCatalog())) await index.sync(namespace, group);
    const hits = await index.search('what will the weather be tomorrow, will it rain', { limit: 3 });
    expect(hits[0]?.id).toBe('tool:mcp__weather__get_forecast');
    expect(hits.every((hit) => Number.isFinite(hit.score))).toBe(true);
    index.close();

    const stale = await openBenchIndex({
      path: ':memory:',
      embedder,
      tuning: { fusion: { method: 'learned' }, learnedFusion: { model: { features: ['bm25'], weights: [1], bias: 0 } } },
    });
    for (const [namespace, group] of byNamespace(fixtureCatalog())) await stale.sync(namespace, group);
    const error = await stale.search('read a file').catch((cause: unknown) => cause);
    expect(RetrievalError.isInstance(error) && error.code).toBe('INVALID_FUSION_MODEL');
    stale.close();
  });
});
