import { describe, expect, it } from 'vitest';
import { solve } from '../../bench/newton-minimise.js';
import { trainPairwiseRanker, type RankingExample } from '../../bench/pairwise-ranker.js';
import { trainListwiseRanker } from '../../bench/listwise-ranker.js';

// Feature 0 separates relevant from irrelevant candidates; feature 1 is noise that favours the wrong ones half the time.
const examples: RankingExample[] = Array.from({ length: 20 }, (_, i) => ({
  positives: [Float64Array.from([0.9, i % 2 === 0 ? 0.2 : 0.8])],
  negatives: [Float64Array.from([0.3, i % 2 === 0 ? 0.9 : 0.1]), Float64Array.from([0.1, 0.5])],
}));
const ranksRelevantFirst = (weights: number[]) =>
  examples.every(({ positives, negatives }) => {
    const score = (x: Float64Array) => x.reduce((sum, value, i) => sum + weights[i] * value, 0);
    return negatives.every((negative) => score(positives[0]) > score(negative));
  });

describe('fusion model training', () => {
  it('solve: Gaussian elimination gives the exact solution', () => {
    const x = solve([Float64Array.from([2, 1]), Float64Array.from([1, 3])], Float64Array.from([5, 10]));
    expect(x[0]).toBeCloseTo(1);
    expect(x[1]).toBeCloseTo(3);
  });

  for (const [name, train] of [['pairwise', trainPairwiseRanker], ['listwise', trainListwiseRanker]] as const) {
    it(`${name}: learns to weigh the separating feature over the noise, deterministically`, () => {
      const weights = train(examples, 2, { l2: 0.001, iterations: 100 });
      expect(weights[0]).toBeGreaterThan(Math.abs(weights[1]));
      expect(ranksRelevantFirst(weights)).toBe(true);
      expect(train(examples, 2, { l2: 0.001, iterations: 100 })).toEqual(weights);
    });
  }

  it('a fixed base score is kept and only the rest learned', () => {
    // The base already orders every pair: the learned weights have nothing to add beyond the L2 pull to 0.
    const based = examples.map((example) => ({ ...example, positiveBase: [10], negativeBase: [0, 0] }));
    const weights = trainPairwiseRanker(based, 2, { l2: 0.1, iterations: 100 });
    expect(Math.abs(weights[0]) + Math.abs(weights[1])).toBeLessThan(0.01);
  });

  it('returns zeros when no request has both relevant and irrelevant candidates', () => {
    expect(trainPairwiseRanker([{ positives: [Float64Array.from([1])], negatives: [] }], 1, { l2: 0.01, iterations: 5 })).toEqual([0]);
    expect(trainListwiseRanker([], 1, { l2: 0.01, iterations: 5 })).toEqual([0]);
  });
});
