import { normalize, type VectorMatrix } from './vector-matrix.js';

/**
 * Pseudo-relevance feedback for the dense side (Rocchio): the query vector moves towards
 * the vectors of the documents the first fused ranking put on top. A short request embeds
 * poorly ("cheap flights to Tokyo" is three words); the best matches' descriptions say the
 * same thing in the catalog's own vocabulary, so the second pass finds their neighbours.
 */
export function feedbackQuery(
  query: Float32Array,
  matrix: VectorMatrix,
  topRowids: readonly number[],
  weight: number,
): Float32Array {
  const moved = Float32Array.from(query);
  const vectors = topRowids.map((rowid) => matrix.vectorOf(rowid)).filter((vector) => vector !== undefined);
  if (vectors.length === 0 || weight <= 0) return moved;
  for (const vector of vectors) for (let d = 0; d < moved.length; d++) moved[d] += (weight * vector[d]) / vectors.length;
  return normalize(moved);
}
