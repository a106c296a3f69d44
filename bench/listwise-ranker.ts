/**
 * A linear listwise ranker (ListNet with one-hot-per-group targets): for each request, the
 * softmax of w·x over its candidates should put its mass on the relevant ones, loss
 * −mean over relevant of log softmax. Unlike pairwise loss it is dominated by the candidates
 * that actually compete for the first slots. Newton's method with an L2 penalty,
 * deterministic. Used by bench/train-fusion.ts (`--loss listwise`).
 */
import { newtonMinimise } from './newton-minimise.js';
import type { PairwiseOptions, RankingExample } from './pairwise-ranker.js';

export function trainListwiseRanker(examples: readonly RankingExample[], dimensions: number, options: PairwiseOptions): number[] {
  const lists = examples
    .filter((example) => example.positives.length > 0 && example.negatives.length > 0)
    .map(({ positives, negatives, positiveBase, negativeBase }) => ({
      features: [...positives, ...negatives],
      base: [...positives.map((_, i) => positiveBase?.[i] ?? 0), ...negatives.map((_, i) => negativeBase?.[i] ?? 0)],
      relevant: positives.length,
    }));
  if (lists.length === 0) return new Array<number>(dimensions).fill(0);
  return newtonMinimise(dimensions, options, (w, gradient, hessian) => {
    for (const { features, base, relevant } of lists) {
      const scores = features.map((x, c) => base[c] + x.reduce((sum, value, i) => sum + w[i] * value, 0));
      const top = Math.max(...scores);
      const exps = scores.map((score) => Math.exp(score - top));
      const total = exps.reduce((sum, value) => sum + value, 0);
      const p = exps.map((value) => value / total);
      const mean = new Float64Array(dimensions);
      features.forEach((x, c) => x.forEach((value, i) => (mean[i] += p[c] * value)));
      const scale = 1 / lists.length;
      // Gradient of −(1/R) Σ_relevant log p_r = E_p[x] − mean of the relevant x.
      for (let i = 0; i < dimensions; i++) {
        let target = 0;
        for (let r = 0; r < relevant; r++) target += features[r][i] / relevant;
        gradient[i] += scale * (mean[i] - target);
      }
      // Hessian: the covariance of x under p.
      features.forEach((x, c) => {
        for (let i = 0; i < dimensions; i++) {
          const di = x[i] - mean[i];
          for (let j = 0; j < dimensions; j++) hessian[i][j] += scale * p[c] * di * (x[j] - mean[j]);
        }
      });
    }
  });
}
