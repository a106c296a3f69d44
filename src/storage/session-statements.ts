import type { SqliteDatabase, SqliteStatement } from './sqlite/sqlite-database.js';

/** Every statement the session store runs, by name. */
const SQL = {
  insertSession: `INSERT INTO sessions (id, cwd, title, mode, parent_id, mcp_servers, created_at, updated_at, owner)
     VALUES (@id, @cwd, @title, @mode, @parent_id, @mcp_servers, @created_at, @updated_at, @owner)`,
  getSession: 'SELECT * FROM sessions WHERE id = ?',
  listSessions: 'SELECT * FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT ?',
  listSessionsByCwd: 'SELECT * FROM sessions WHERE cwd = ? ORDER BY updated_at DESC, rowid DESC LIMIT ?',
  updateSession: `UPDATE sessions SET
       title = CASE WHEN @setTitle THEN @title ELSE title END,
       mode = COALESCE(@mode, mode),
       updated_at = @updatedAt
     WHERE id = @id`,
  touchSession: 'UPDATE sessions SET updated_at = ? WHERE id = ?',
  deleteSession: 'DELETE FROM sessions WHERE id = ?',
  nextMessageSeq: 'SELECT COALESCE(MAX(seq) + 1, 0) AS next FROM messages WHERE session_id = ?',
  insertMessage: 'INSERT INTO messages (session_id, seq, message) VALUES (?, ?, ?)',
  deleteMessages: 'DELETE FROM messages WHERE session_id = ?',
  loadMessages: 'SELECT seq, message AS text FROM messages WHERE session_id = ? ORDER BY seq',
  nextEventSeq: 'SELECT COALESCE(MAX(seq) + 1, 0) AS next FROM events WHERE session_id = ?',
  insertEvent: 'INSERT INTO events (session_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)',
  loadEvents: 'SELECT seq, type, data AS text FROM events WHERE session_id = ? ORDER BY seq',
  // INSERT … SELECT: inserts nothing (changes = 0) when the session does not exist.
  upsertToolCall: `INSERT INTO tool_calls (session_id, tool_call_id, tool_name, args, status, result, started_at, finished_at)
     SELECT @sessionId, @toolCallId, @toolName, @args, @status, NULL, @startedAt, NULL
     WHERE EXISTS (SELECT 1 FROM sessions WHERE id = @sessionId)
     ON CONFLICT (session_id, tool_call_id) DO UPDATE SET
       tool_name = excluded.tool_name, args = excluded.args, status = excluded.status,
       result = NULL, started_at = excluded.started_at, finished_at = NULL`,
  finishToolCall: `UPDATE tool_calls SET status = @status, result = @result, finished_at = @finishedAt
     WHERE session_id = @sessionId AND tool_call_id = @toolCallId`,
  loadToolCalls: 'SELECT * FROM tool_calls WHERE session_id = ? ORDER BY started_at, rowid',
  // A fork copies rows as stored (JSON text and timestamps unchanged) under the new session's id.
  copyMessageRows: 'SELECT seq, message FROM messages WHERE session_id = ? ORDER BY seq',
  copyEventRows: 'SELECT seq, type, data, created_at FROM events WHERE session_id = ? ORDER BY seq',
  insertEventRow: 'INSERT INTO events (session_id, seq, type, data, created_at) VALUES (@sessionId, @seq, @type, @data, @createdAt)',
  insertToolCallRow: `INSERT INTO tool_calls (session_id, tool_call_id, tool_name, args, status, result, started_at, finished_at)
     VALUES (@sessionId, @toolCallId, @toolName, @args, @status, @result, @startedAt, @finishedAt)`,
} as const;

export type SessionStatements = { readonly [Name in keyof typeof SQL]: SqliteStatement };

/** Prepares every statement once per open file. */
export function prepareSessionStatements(db: SqliteDatabase): SessionStatements {
  return Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)])) as SessionStatements;
}
