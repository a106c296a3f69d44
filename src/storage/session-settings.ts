import type { SqliteDatabase, SqliteStatement } from './sqlite/sqlite-database.js';

/**
 * Per-session settings a client chose (model, reasoning effort, extra workspace roots), as
 * JSON values by key. Kept in a table of its own, created when missing, so it needs no step in
 * the numbered schema migrations; rows go with their session (ON DELETE CASCADE).
 */
export class SessionSettings {
  readonly #get: SqliteStatement;
  readonly #set: SqliteStatement;

  constructor(db: SqliteDatabase) {
    db.exec(`CREATE TABLE IF NOT EXISTS session_settings (
      session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      PRIMARY KEY (session_id, key)
    ) WITHOUT ROWID`);
    this.#get = db.prepare('SELECT key, value FROM session_settings WHERE session_id = ?');
    this.#set = db.prepare(
      'INSERT INTO session_settings (session_id, key, value) VALUES (?, ?, ?) ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value',
    );
  }

  /** Every setting of the session; a value that is not JSON any more is skipped. */
  get(sessionId: string): Record<string, unknown> {
    const settings: Record<string, unknown> = {};
    for (const row of this.#get.all(sessionId) as Array<{ key: string; value: string }>) {
      try {
        settings[row.key] = JSON.parse(row.value);
      } catch {
        // A hand-edited row must not make the session unloadable.
      }
    }
    return settings;
  }

  set(sessionId: string, key: string, value: unknown): void {
    this.#set.run(sessionId, key, JSON.stringify(value));
  }
}
