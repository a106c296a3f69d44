import type { SqliteDatabase, SqliteStatement } from '../storage/sqlite/sqlite-database.js';
import { bm25WeightArgs, FTS_COLUMNS, type FieldWeights } from './field-weights.js';
import type { ScoredRow } from './vector-matrix.js';

export interface ExistingRow {
  rowid: number;
  id: string;
  hash: string;
  embed_hash: string | null;
  has_vector: number;
}

type Statement<Params extends unknown[] | object, Row = unknown> = SqliteStatement<Params, Row>;
type Bm25Params = { match: string; kinds: string | null; namespaces: string | null; limit: number };
export type CatalogRow = { rowid: number; kind: string; namespace: string; vector: Uint8Array | null };

export interface IndexStatements {
  existing: Statement<[string], ExistingRow>;
  byIds: Statement<[string], ExistingRow>;
  vectorsByEmbedHash: Statement<[string], { embed_hash: string; vector: Uint8Array }>;
  upsert: Statement<[string, string, string, string, string | null, Uint8Array | null, string], { rowid: number }>;
  deleteFts: Statement<[number]>;
  insertFts: Statement<unknown[]>;
  deleteDoc: Statement<[number]>;
  rowidOf: Statement<[string], { rowid: number }>;
  rowidsOfNamespace: Statement<[string], { rowid: number }>;
  get: Statement<[string], { json: string }>;
  jsonByRowids: Statement<[string], { rowid: number; json: string }>;
  count: Statement<[], { n: number }>;
  countNamespace: Statement<[string], { n: number }>;
  bm25: Statement<Bm25Params, ScoredRow>;
  /** The same ranking with no filter: no join with the documents table. */
  bm25Unfiltered: Statement<{ match: string; limit: number }, ScoredRow>;
  catalog: Statement<[], CatalogRow>;
  dataVersion: Statement<[], { data_version: number }>;
}

/**
 * Every SQL statement of the hybrid index, prepared once per connection. The BM25 query
 * carries the field weights as literals: bm25() takes them only as constant arguments.
 */
export function prepareStatements(db: SqliteDatabase, weights: FieldWeights): IndexStatements {
  return {
    existing: db.prepare<[string], ExistingRow>(
      'SELECT rowid, id, hash, embed_hash, vector IS NOT NULL AS has_vector FROM retrieval_docs WHERE namespace = ?',
    ),
    byIds: db.prepare<[string], ExistingRow>(
      `SELECT rowid, id, hash, embed_hash, vector IS NOT NULL AS has_vector FROM retrieval_docs
       WHERE id IN (SELECT value FROM json_each(?))`,
    ),
    vectorsByEmbedHash: db.prepare<[string], { embed_hash: string; vector: Uint8Array }>(
      `SELECT embed_hash, vector FROM retrieval_docs WHERE vector IS NOT NULL
       AND embed_hash IN (SELECT value FROM json_each(?))`,
    ),
    upsert: db.prepare<[string, string, string, string, string | null, Uint8Array | null, string], { rowid: number }>(
      `INSERT INTO retrieval_docs (id, kind, namespace, hash, embed_hash, vector, json) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, namespace = excluded.namespace, hash = excluded.hash,
         embed_hash = excluded.embed_hash, vector = excluded.vector, json = excluded.json
       RETURNING rowid`,
    ),
    deleteFts: db.prepare<[number]>('DELETE FROM retrieval_fts WHERE rowid = ?'),
    insertFts: db.prepare<unknown[]>(
      `INSERT INTO retrieval_fts (rowid, ${FTS_COLUMNS.join(', ')}) VALUES (?, ${FTS_COLUMNS.map(() => '?').join(', ')})`,
    ),
    deleteDoc: db.prepare<[number]>('DELETE FROM retrieval_docs WHERE rowid = ?'),
    rowidOf: db.prepare<[string], { rowid: number }>('SELECT rowid FROM retrieval_docs WHERE id = ?'),
    rowidsOfNamespace: db.prepare<[string], { rowid: number }>('SELECT rowid FROM retrieval_docs WHERE namespace = ?'),
    get: db.prepare<[string], { json: string }>('SELECT json FROM retrieval_docs WHERE id = ?'),
    jsonByRowids: db.prepare<[string], { rowid: number; json: string }>(
      'SELECT rowid, json FROM retrieval_docs WHERE rowid IN (SELECT value FROM json_each(?))',
    ),
    count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM retrieval_docs'),
    countNamespace: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM retrieval_docs WHERE namespace = ?'),
    ...bm25Statements<ScoredRow>(db, weights, ''),
    catalog: db.prepare<[], CatalogRow>(
      'SELECT rowid, kind, namespace, vector FROM retrieval_docs',
    ),
    dataVersion: db.prepare<[], { data_version: number }>('PRAGMA data_version'),
  };
}

/** The BM25 ranking, joined with the documents for the kind/namespace filter and without it; `columns` adds to each row. */
export function bm25Statements<Row extends ScoredRow>(db: SqliteDatabase, weights: FieldWeights, columns: string) {
  const bm25 = `bm25(retrieval_fts, ${bm25WeightArgs(weights)})`;
  const filter = `(@kinds IS NULL OR d.kind IN (SELECT value FROM json_each(@kinds)))
      AND (@namespaces IS NULL OR d.namespace IN (SELECT value FROM json_each(@namespaces)))`;
  return {
    bm25: db.prepare<Bm25Params, Row>(
      `SELECT f.rowid AS rowid, -${bm25} AS score${columns}
       FROM retrieval_fts f JOIN retrieval_docs d ON d.rowid = f.rowid
       WHERE retrieval_fts MATCH @match AND ${filter}
       ORDER BY ${bm25} LIMIT @limit`,
    ),
    bm25Unfiltered: db.prepare<{ match: string; limit: number }, Row>(
      `SELECT rowid, -${bm25} AS score${columns}
       FROM retrieval_fts WHERE retrieval_fts MATCH @match
       ORDER BY ${bm25} LIMIT @limit`,
    ),
  };
}
