import { rowFilter, type CatalogSnapshot, type RowScope } from './catalog-snapshot.js';
import { isZeroVector, type ScoredRow } from './vector-matrix.js';

export interface DenseHitsOptions extends RowScope {
  /** Per query vector: rows that get their exact score even outside the top `depth` (BM25's candidates). */
  also: readonly (readonly number[])[];
}

/**
 * The nearest documents to each query vector, by one scan of the catalog's vectors each,
 * filtered by kind and namespace, best first. A zero vector (a request with no content
 * words) gives no hits, and a 0 score is no evidence, so it is dropped.
 */
export function denseHits(catalog: CatalogSnapshot, vectors: readonly Float32Array[], depth: number, options: DenseHitsOptions): ScoredRow[][] {
  const { matrix, meta } = catalog;
  const accept = rowFilter(meta, options);
  const mask = matrix && accept && vectors.length > 0 ? matrix.mask(accept) : undefined;
  return vectors.map((vector, i) => {
    if (!matrix || isZeroVector(vector)) return [];
    return matrix
      .nearest(vector, depth, mask, options.also[i])
      .filter((hit) => hit.score !== 0)
      .sort((a, b) => b.score - a.score);
  });
}
