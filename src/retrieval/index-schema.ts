import type { SqliteDatabase } from '../storage/sqlite/sqlite-database.js';
import { FTS_COLUMNS } from './field-weights.js';

/** Bumped when the tables change shape; an older file is rebuilt from scratch. */
export const SCHEMA_VERSION = '3';

/**
 * `retrieval_docs` holds each document once (its JSON, content hash, and vector as a float32
 * blob); `retrieval_fts` is the FTS5 table over the prepared column texts, sharing
 * `retrieval_docs.rowid`. Tables are prefixed because `.plaited/index.db` is shared (the
 * embedder keeps its vector cache there). The porter stemmer lets "forecasts" meet
 * "forecast"; unicode61 with diacritics removed lets "café" meet "cafe". CJK runs arrive
 * already cut into character bigrams (cjk-bigrams.ts), which unicode61 keeps as tokens.
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS retrieval_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS retrieval_docs (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  namespace TEXT NOT NULL,
  hash TEXT NOT NULL,
  embed_hash TEXT,
  vector BLOB,
  json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS retrieval_docs_namespace ON retrieval_docs (namespace);
CREATE INDEX IF NOT EXISTS retrieval_docs_embed_hash ON retrieval_docs (embed_hash);
CREATE VIRTUAL TABLE IF NOT EXISTS retrieval_fts USING fts5(
  ${FTS_COLUMNS.join(', ')},
  tokenize = 'porter unicode61 remove_diacritics 2'
);
`;

export const DROP_SQL = `
DROP TABLE IF EXISTS retrieval_fts;
DROP TABLE IF EXISTS retrieval_docs;
DROP TABLE IF EXISTS retrieval_meta;
`;

/**
 * Creates the tables, or rebuilds them when the file has another schema version. Documents
 * indexed with another text recipe get an empty hash so the next sync rewrites them; vectors
 * of another embedder (model or size) are dropped so the next sync recomputes them.
 */
export function migrateIndex(db: SqliteDatabase, options: { recipe: string; embedderKey?: string }): void {
  const readMeta = (key: string): string | undefined => {
    try {
      return db.prepare<[string], { value: string }>('SELECT value FROM retrieval_meta WHERE key = ?').get(key)?.value;
    } catch {
      return undefined;
    }
  };
  if (readMeta('schema') !== SCHEMA_VERSION) db.exec(DROP_SQL);
  db.exec(SCHEMA_SQL);
  const setMeta = db.prepare('INSERT OR REPLACE INTO retrieval_meta (key, value) VALUES (?, ?)');
  setMeta.run('schema', SCHEMA_VERSION);
  if (readMeta('recipe') !== options.recipe) {
    db.exec("UPDATE retrieval_docs SET hash = ''");
    setMeta.run('recipe', options.recipe);
  }
  if (options.embedderKey && readMeta('embedder') !== options.embedderKey) {
    db.exec('UPDATE retrieval_docs SET vector = NULL, embed_hash = NULL');
    setMeta.run('embedder', options.embedderKey);
  }
}
