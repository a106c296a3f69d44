import { openSqliteDatabase } from '../storage/sqlite/open-sqlite-database.js';
import type { SqliteDatabase, SqliteStatement } from '../storage/sqlite/sqlite-database.js';

/**
 * The persistent vector cache: one SQLite table keyed by (model id, sha256 of the embedded text),
 * vectors as Float32 blobs, so re-embedding an unchanged catalog after a restart costs no model
 * time. It may share a database file with other tables (e.g. the search index).
 */
export class EmbeddingStore {
  private readonly db: SqliteDatabase;
  private readonly select: SqliteStatement<[string, string], { vector: Uint8Array }>;
  private readonly insert: SqliteStatement<[string, string, number, Uint8Array, number]>;

  constructor(path: string) {
    this.db = openSqliteDatabase(path);
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('busy_timeout = 5000');
      this.db.exec(`CREATE TABLE IF NOT EXISTS embedding_cache (
        model_id TEXT NOT NULL,
        text_sha256 TEXT NOT NULL,
        dimensions INTEGER NOT NULL,
        vector BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (model_id, text_sha256)
      ) WITHOUT ROWID`);
      this.select = this.db.prepare('SELECT vector FROM embedding_cache WHERE model_id = ? AND text_sha256 = ?');
      this.insert = this.db.prepare(
        'INSERT OR REPLACE INTO embedding_cache (model_id, text_sha256, dimensions, vector, created_at) VALUES (?, ?, ?, ?, ?)',
      );
    } catch (error) {
      // Not a database, or locked past the timeout: the file handle must not outlive the failure.
      this.db.close();
      throw error;
    }
  }

  getMany(modelId: string, hashes: readonly string[]): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    for (const hash of hashes) {
      const row = this.select.get(modelId, hash);
      if (!row) continue;
      // Copy out of the Buffer: its memory may be pooled and its offset unaligned for Float32.
      const bytes = new Uint8Array(row.vector.byteLength);
      bytes.set(row.vector);
      found.set(hash, new Float32Array(bytes.buffer));
    }
    return found;
  }

  putMany(modelId: string, entries: ReadonlyArray<{ hash: string; vector: Float32Array }>): void {
    const now = Date.now();
    const write = this.db.transaction(() => {
      for (const { hash, vector } of entries) {
        this.insert.run(modelId, hash, vector.length, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), now);
      }
    });
    write();
  }

  count(modelId?: string): number {
    const row = modelId
      ? (this.db.prepare('SELECT count(*) AS n FROM embedding_cache WHERE model_id = ?').get(modelId) as { n: number })
      : (this.db.prepare('SELECT count(*) AS n FROM embedding_cache').get() as { n: number });
    return row.n;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
