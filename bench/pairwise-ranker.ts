/**
 * A linear pairwise ranker (RankNet with a linear scorer): logistic regression on the
 * feature difference of (relevant, irrelevant) candidate pairs of the same request, so the
 * weights learn to order a request's candidates, not to score candidates across requests.
 * Newton's method from zero with an L2 penalty (newton-minimise.ts): deterministic, a few
 * dozen iterations for a dozen features. Used by bench/train-fusion.ts.
 */
import { newtonMinimise } from './newton-minimise.js';

export interface RankingExample {
  /** Features of the request's relevant candidates. */
  positives: readonly Float64Array[];
  /** Features of its irrelevant candidates. */
  negatives: readonly Float64Array[];
  /** A fixed part of each candidate's score that is not learned (same order as the features); 0 when absent. */
  positiveBase?: readonly number[];
  negativeBase?: readonly number[];
}

export interface PairwiseOptions {
  /** L2 penalty on the weights (on the mean loss). */
  l2: number;
  iterations: number;
}

/**
 * Weights w minimising mean over requests of the mean pairwise loss log(1 + e^{−(base(p) − base(n) + w·(p − n))}),
 * plus `l2`/2 · |w|². Each request weighs the same, however many pairs it has.
 */
export function trainPairwiseRanker(examples: readonly RankingExample[], dimensions: number, options: PairwiseOptions): number[] {
  const pairs: { difference: Float64Array; weight: number; offset: number }[] = [];
  let requests = 0;
  for (const { positives, negatives, positiveBase, negativeBase } of examples) {
    const count = positives.length * negatives.length;
    if (count === 0) continue;
    requests++;
    positives.forEach((positive, p) => {
      negatives.forEach((negative, n) => {
        const offset = (positiveBase?.[p] ?? 0) - (negativeBase?.[n] ?? 0);
        pairs.push({ difference: positive.map((value, i) => value - negative[i]), weight: 1 / count, offset });
      });
    });
  }
  if (requests === 0) return new Array<number>(dimensions).fill(0);
  return newtonMinimise(dimensions, options, (w, gradient, hessian) => {
    for (const { difference, weight, offset } of pairs) {
      let margin = offset;
      for (let i = 0; i < dimensions; i++) margin += w[i] * difference[i];
      const p = 1 / (1 + Math.exp(margin)); // σ(−margin): how wrong the pair still is
      const scale = weight / requests;
      for (let i = 0; i < dimensions; i++) {
        gradient[i] -= scale * p * difference[i];
        const curvature = scale * p * (1 - p) * difference[i];
        for (let j = 0; j < dimensions; j++) hessian[i][j] += curvature * difference[j];
      }
    }
  });
}
