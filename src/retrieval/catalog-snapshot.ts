import type { CatalogRow } from './index-statements.js';
import { blobToVector, VectorMatrix } from './vector-matrix.js';

/** Kinds, namespaces and vectors of every document: what filtering and dense search read. */
export interface CatalogSnapshot {
  meta: Map<number, { kind: string; namespace: string }>;
  matrix?: VectorMatrix;
}

/**
 * Builds the snapshot from the catalog rows. Vectors are kept only `withVectors` (an index
 * with an embedder), and only those of `dimensions` (else the first vector's length), so a
 * stray vector of another size never reaches the matrix.
 */
export function loadCatalogSnapshot(rows: Iterable<CatalogRow>, options: { withVectors: boolean; dimensions?: number }): CatalogSnapshot {
  const meta = new Map<number, { kind: string; namespace: string }>();
  const vectors: { rowid: number; vector: Float32Array }[] = [];
  for (const row of rows) {
    meta.set(row.rowid, { kind: row.kind, namespace: row.namespace });
    if (row.vector && options.withVectors) vectors.push({ rowid: row.rowid, vector: blobToVector(row.vector) });
  }
  const dimensions = options.dimensions ?? vectors[0]?.vector.length;
  const matrix = dimensions ? new VectorMatrix(dimensions, vectors.filter((row) => row.vector.length === dimensions)) : undefined;
  return { meta, matrix };
}

/** Which rows a search may return; an absent set lets every kind or namespace through. */
export interface RowScope {
  kinds?: ReadonlySet<string>;
  namespaces?: ReadonlySet<string>;
}

/**
 * A test for "this row is of one of `kinds` and in one of `namespaces`" by the snapshot's
 * metadata; undefined when neither is given (everything passes). A row the snapshot does
 * not know (written after it was read) fails.
 */
export function rowFilter(meta: CatalogSnapshot['meta'], { kinds, namespaces }: RowScope): ((rowid: number) => boolean) | undefined {
  if (!kinds && !namespaces) return undefined;
  return (rowid) => {
    const entry = meta.get(rowid);
    return !!entry && (!kinds || kinds.has(entry.kind)) && (!namespaces || namespaces.has(entry.namespace));
  };
}
