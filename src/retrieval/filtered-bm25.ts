import { rowFilter, type CatalogSnapshot, type RowScope } from './catalog-snapshot.js';
import type { IndexStatements } from './index-statements.js';
import type { ScoredRow } from './vector-matrix.js';

/** How many more rows than asked for are read when a filter may drop some. */
const OVERFETCH = 2;

/**
 * BM25 hits for one FTS5 MATCH expression, filtered by kind and namespace.
 *
 * Joining every match with `retrieval_docs` for the filter costs more than the
 * match itself at 10,000 documents (an OR query of a request's words matches a
 * tenth of them), and a multi-step request runs one query per step. So the
 * match is read alone and filtered in memory by the catalog snapshot (which
 * dense search holds anyway); only when the filter leaves too few of a full
 * page does the joined statement answer. A row the snapshot does not know yet
 * (written since it was read) is dropped, and so also sends the query there.
 */
export function filteredBm25(
  statements: Pick<IndexStatements, 'bm25' | 'bm25Unfiltered'>,
  match: string,
  depth: number,
  scope: RowScope,
  meta: CatalogSnapshot['meta'],
): ScoredRow[] {
  const accept = rowFilter(meta, scope);
  if (!accept) return statements.bm25Unfiltered.all({ match, limit: depth });
  const limit = depth * OVERFETCH;
  const rows = statements.bm25Unfiltered.all({ match, limit });
  const kept = rows.filter((row) => accept(row.rowid));
  if (kept.length >= depth || rows.length < limit) return kept.slice(0, depth);
  return statements.bm25.all({
    match,
    kinds: scope.kinds ? JSON.stringify([...scope.kinds]) : null,
    namespaces: scope.namespaces ? JSON.stringify([...scope.namespaces]) : null,
    limit: depth,
  });
}
