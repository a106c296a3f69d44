/**
 * Newton's method from w = 0 for the two linear rankers (pairwise-ranker.ts,
 * listwise-ranker.ts): `accumulate` adds its loss's gradient and Hessian at w, this adds the
 * L2 penalty, solves for the step and takes it, damped so that no weight moves more than
 * MAX_STEP at once (a flat direction of the loss, a feature constant within every request,
 * must not throw w far off). Deterministic.
 */

/** The largest change of one weight in one Newton step. */
export const MAX_STEP = 1;

export function newtonMinimise(
  dimensions: number,
  options: { l2: number; iterations: number },
  accumulate: (w: Float64Array, gradient: Float64Array, hessian: Float64Array[]) => void,
): number[] {
  const w = new Float64Array(dimensions);
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    const gradient = new Float64Array(dimensions);
    const hessian = Array.from({ length: dimensions }, () => new Float64Array(dimensions));
    accumulate(w, gradient, hessian);
    for (let i = 0; i < dimensions; i++) {
      gradient[i] += options.l2 * w[i];
      hessian[i][i] += options.l2;
    }
    const step = solve(hessian, gradient);
    const size = step.reduce((most, value) => Math.max(most, Math.abs(value)), 0);
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
