import type { SqliteDatabase, SqliteStatement } from './sqlite/sqlite-database.js';

/** What a reply had streamed when it was last persisted. */
export interface StreamDraft {
  text: string;
  reasoning: string;
  updatedAt: string;
}

/**
 * The reply a model step is streaming, kept beside the history while it streams (the step's
 * messages are written only when it ends). A row that outlives its step means the process
 * died mid-reply: the session's next opener folds it into the history.
 */
export class StreamDrafts {
  readonly #append: SqliteStatement;
  readonly #clear: SqliteStatement;
  readonly #get: SqliteStatement;

  constructor(db: SqliteDatabase) {
    this.#append = db.prepare(`INSERT INTO stream_drafts (session_id, text, reasoning, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (session_id) DO UPDATE SET text = text || excluded.text, reasoning = reasoning || excluded.reasoning, updated_at = excluded.updated_at`);
    this.#clear = db.prepare('DELETE FROM stream_drafts WHERE session_id = ?');
    this.#get = db.prepare('SELECT text, reasoning, updated_at AS updatedAt FROM stream_drafts WHERE session_id = ?');
  }

  append(sessionId: string, text: string, reasoning: string, at: string): void {
    this.#append.run(sessionId, text, reasoning, at);
  }

  clear(sessionId: string): void {
    this.#clear.run(sessionId);
  }

  get(sessionId: string): StreamDraft | undefined {
    return this.#get.get(sessionId) as StreamDraft | undefined;
  }
}
