/**
 * Eigenvectors of a small symmetric matrix by the cyclic Jacobi method: deterministic, and
 * accurate to a few ulps for well-separated eigenvalues, which is what the GloVe build needs
 * (its principal directions must agree with LAPACK's SVD far below float16 resolution).
 */
export interface Eigen {
  /** Descending. */
  values: number[];
  /** `vectors[k]` is the unit eigenvector of `values[k]`. */
  vectors: Float64Array[];
}

/** `matrix` is n×n row-major and symmetric; it is not modified. */
export function symmetricEigen(matrix: Float64Array, n: number): Eigen {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] ** 2;
    if (off === 0) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (apq === 0) continue;
        const app = a[p * n + p];
        const aqq = a[q * n + q];
        // After a few sweeps, an entry below rounding of both diagonal entries is zero.
        if (sweep > 3 && Math.abs(app) + 100 * Math.abs(apq) === Math.abs(app) && Math.abs(aqq) + 100 * Math.abs(apq) === Math.abs(aqq)) {
          a[p * n + q] = a[q * n + p] = 0;
          continue;
        }
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p];
          const akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k];
          const aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p];
          const vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => a[j * n + j] - a[i * n + i]);
  return {
    values: order.map((i) => a[i * n + i]),
    vectors: order.map((i) => Float64Array.from({ length: n }, (_, k) => v[k * n + i])),
  };
}
