import type { SqliteDatabase, SqliteStatement } from './sqlite/sqlite-database.js';

/** What a reply had streamed when it was last persisted. */
export interface StreamDraft {
  text: string;
  reasoning: string;
  updatedAt: string;
}

/**
 * The reply a model step is streaming, kept beside the history while it streams (the step's
 * messages are written only when it ends). Each flush appends one piece, so persisting a
 * reply costs time linear in its length (the pieces are joined only on recovery). Pieces
 * that outlive their step mean the process died mid-reply: the session's next opener folds
 * them into the history.
 */
export class StreamDrafts {
  readonly #append: SqliteStatement;
  readonly #clear: SqliteStatement;
  readonly #get: SqliteStatement;

  constructor(db: SqliteDatabase) {
    this.#append = db.prepare(`INSERT INTO stream_draft_chunks (session_id, seq, text, reasoning, updated_at)
      SELECT @sessionId, COALESCE(MAX(seq) + 1, 0), @text, @reasoning, @at FROM stream_draft_chunks WHERE session_id = @sessionId`);
    this.#clear = db.prepare('DELETE FROM stream_draft_chunks WHERE session_id = ?');
    this.#get = db.prepare('SELECT text, reasoning, updated_at AS updatedAt FROM stream_draft_chunks WHERE session_id = ? ORDER BY seq');
  }

  append(sessionId: string, text: string, reasoning: string, at: string): void {
    this.#append.run({ sessionId, text, reasoning, at });
  }

  clear(sessionId: string): void {
    this.#clear.run(sessionId);
  }

  get(sessionId: string): StreamDraft | undefined {
    const pieces = this.#get.all(sessionId) as StreamDraft[];
    if (pieces.length === 0) return undefined;
    return {
      text: pieces.map((piece) => piece.text).join(''),
      reasoning: pieces.map((piece) => piece.reasoning).join(''),
      updatedAt: pieces[pieces.length - 1]!.updatedAt,
    };
  }
}
