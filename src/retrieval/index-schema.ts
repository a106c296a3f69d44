import { FTS_COLUMNS } from './field-weights.js';

/** Bumped when the tables change shape; an older file is rebuilt from scratch. */
export const SCHEMA_VERSION = '2';

/**
 * `docs` holds each document once (its JSON, content hash, and vector as a float32 blob);
 * `docs_fts` is the FTS5 table over the prepared column texts, sharing `docs.rowid`. The
 * porter stemmer lets "forecasts" meet "forecast"; unicode61 with diacritics removed lets
 * "café" meet "cafe".
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  namespace TEXT NOT NULL,
  hash TEXT NOT NULL,
  embed_hash TEXT,
  vector BLOB,
  json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_namespace ON docs (namespace);
CREATE INDEX IF NOT EXISTS docs_embed_hash ON docs (embed_hash);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
  ${FTS_COLUMNS.join(', ')},
  tokenize = 'porter unicode61 remove_diacritics 2'
);
`;

export const DROP_SQL = `
DROP TABLE IF EXISTS docs_fts;
DROP TABLE IF EXISTS docs;
DROP TABLE IF EXISTS meta;
`;
