/**
 * A linear pairwise ranker (RankNet with a linear scorer): logistic regression on the
 * feature difference of (relevant, irrelevant) candidate pairs of the same request, so the
 * weights learn to order a request's candidates, not to score candidates across requests.
 * Newton's method from zero with an L2 penalty: deterministic, a few dozen iterations for a
 * dozen features. Used by bench/train-fusion.ts.
 */
/** The largest change of one weight in one Newton step. */
export const MAX_STEP = 1;

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
  const w = new Float64Array(dimensions);
  if (requests === 0) return [...w];
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    const gradient = new Float64Array(dimensions);
    const hessian = Array.from({ length: dimensions }, () => new Float64Array(dimensions));
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
    for (let i = 0; i < dimensions; i++) {
      gradient[i] += options.l2 * w[i];
      hessian[i][i] += options.l2;
    }
    const step = solve(hessian, gradient);
    const size = step.reduce((most, value) => Math.max(most, Math.abs(value)), 0);
    // Damped: a flat direction of the loss (a feature constant within every request) must not throw w far off.
    const damping = size > MAX_STEP ? MAX_STEP / size : 1;
    for (let i = 0; i < dimensions; i++) w[i] -= damping * step[i];
    if (size < 1e-9) break;
  }
  return [...w];
}

/** Gaussian elimination with partial pivoting: A x = b (A is positive definite here thanks to the L2 term). */
export function solve(matrix: readonly Float64Array[], vector: Float64Array): Float64Array {
  const n = vector.length;
  const a = matrix.map((row, i) => Float64Array.from([...row, vector[i]]));
  for (let column = 0; column < n; column++) {
    let pivot = column;
    for (let row = column + 1; row < n; row++) if (Math.abs(a[row][column]) > Math.abs(a[pivot][column])) pivot = row;
    [a[column], a[pivot]] = [a[pivot], a[column]];
    const head = a[column][column];
    if (head === 0) continue;
    for (let row = column + 1; row < n; row++) {
      const factor = a[row][column] / head;
      for (let k = column; k <= n; k++) a[row][k] -= factor * a[column][k];
    }
  }
  const x = new Float64Array(n);
  for (let row = n - 1; row >= 0; row--) {
    let sum = a[row][n];
    for (let k = row + 1; k < n; k++) sum -= a[row][k] * x[k];
    x[row] = a[row][row] === 0 ? 0 : sum / a[row][row];
  }
  return x;
}
