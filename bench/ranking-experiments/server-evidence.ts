import { normalize, type VectorMatrix } from '../../src/retrieval/vector-matrix.js';

/**
 * Two-stage evidence from the server (namespace) as a whole: a server's tools together
 * describe its domain ("remember", "note that" fit a knowledge-graph memory server even when
 * no single tool says so), so each document also gains `weight ×` how well the request fits
 * its namespace's centroid (the mean of its tools' vectors), relative to the best-fitting
 * namespace among the candidates. Namespaces with fewer than `minDocs` vectors have no
 * centroid (a lone document's centroid is just its own vector, which dense search already
 * counts).
 */
export interface ServerEvidenceOptions {
  /** 0 switches it off. */
  weight: number;
  minDocs: number;
}

/** Centroids per vector matrix (one per catalog snapshot) and `minDocs`, computed once. */
const cache = new WeakMap<VectorMatrix, Map<number, Map<string, Float32Array>>>();

/** `rowids`: every document of the catalog, in catalog order (those without a vector are skipped). */
export function namespaceCentroids(
  matrix: VectorMatrix,
  rowids: Iterable<number>,
  namespaceOf: (rowid: number) => string | undefined,
  minDocs: number,
): Map<string, Float32Array> {
  const byMinDocs = cache.get(matrix) ?? new Map<number, Map<string, Float32Array>>();
  cache.set(matrix, byMinDocs);
  let centroids = byMinDocs.get(minDocs);
  if (!centroids) byMinDocs.set(minDocs, (centroids = computeCentroids(matrix, rowids, namespaceOf, minDocs)));
  return centroids;
}

function computeCentroids(
  matrix: VectorMatrix,
  rowids: Iterable<number>,
  namespaceOf: (rowid: number) => string | undefined,
  minDocs: number,
): Map<string, Float32Array> {
  const sums = new Map<string, { sum: Float32Array; count: number }>();
  for (const rowid of rowids) {
    const namespace = namespaceOf(rowid);
    const vector = matrix.vectorOf(rowid);
    if (namespace === undefined || !vector) continue;
    let entry = sums.get(namespace);
    if (!entry) sums.set(namespace, (entry = { sum: new Float32Array(matrix.dimensions), count: 0 }));
    for (let d = 0; d < vector.length; d++) entry.sum[d] += vector[d];
    entry.count++;
  }
  const centroids = new Map<string, Float32Array>();
  for (const [namespace, { sum, count }] of sums) if (count >= Math.max(1, minDocs)) centroids.set(namespace, normalize(sum));
  return centroids;
}

export function applyServerEvidence(
  scores: Map<number, number>,
  namespaceOf: (rowid: number) => string | undefined,
  fit: (namespace: string) => number | undefined,
  options: ServerEvidenceOptions,
): Map<number, number> {
  if (options.weight <= 0 || scores.size === 0) return scores;
  const fits = new Map<string, number>();
  for (const rowid of scores.keys()) {
    const namespace = namespaceOf(rowid);
    if (namespace === undefined || fits.has(namespace)) continue;
    fits.set(namespace, Math.max(0, fit(namespace) ?? 0));
  }
  const best = Math.max(0, ...fits.values());
  if (!(best > 0)) return scores;
  const lifted = new Map<number, number>();
  for (const [rowid, score] of scores) {
    const namespace = namespaceOf(rowid);
    lifted.set(rowid, score + options.weight * ((namespace === undefined ? 0 : fits.get(namespace) ?? 0) / best));
  }
  return lifted;
}
