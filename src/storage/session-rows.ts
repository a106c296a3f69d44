import { parseJsonColumn, toJsonColumn } from './json-column.js';
import type { NewSession, StoredMcpServerRecord, StoredSession, StoredToolCall, StoredToolCallStatus } from './session-records.js';

/**
 * The session store's SQLite rows and how they become records. A row whose JSON cannot be
 * read is reported through `report` and skipped (or its column defaulted), never thrown:
 * one corrupt row must not make a whole session unloadable.
 */

/** The row a new session is stored as, in every driver: defaults filled, `stamp` as both times. */
export function rowOfNewSession(session: NewSession, stamp: string): SessionRow {
  return {
    id: session.sessionId,
    cwd: session.cwd,
    title: session.title ?? null,
    mode: session.mode ?? 'default',
    parent_id: session.parentSessionId ?? null,
    mcp_servers: toJsonColumn(session.mcpServers ?? []),
    created_at: stamp,
    updated_at: stamp,
    owner: session.owner ?? null,
  };
}

/** A row whose JSON could not be read; it was skipped (or its column defaulted). */
export interface CorruptRow {
  table: 'sessions' | 'messages' | 'tool_calls' | 'events';
  sessionId: string;
  /** `seq` for messages and events, the tool call id for tool calls, the column for sessions. */
  key: string | number;
  error: Error;
}

export type ReportCorrupt = (row: CorruptRow) => void;

export type SessionRow = {
  id: string;
  cwd: string;
  title: string | null;
  mode: string;
  parent_id: string | null;
  mcp_servers: string;
  created_at: string;
  updated_at: string;
  owner: string | null;
};
export type SeqRow = { seq: number; text: string };
export type EventRow = SeqRow & { type: string };
export type ToolCallRow = {
  session_id: string;
  tool_call_id: string;
  tool_name: string;
  args: string;
  status: string;
  result: string | null;
  started_at: string;
  finished_at: string | null;
};

export function sessionFromRow(row: SessionRow, report: ReportCorrupt): StoredSession {
  let mcpServers: StoredMcpServerRecord[] = [];
  const parsed = parseJsonColumn(row.mcp_servers);
  if (parsed.ok && Array.isArray(parsed.value)) mcpServers = parsed.value as StoredMcpServerRecord[];
  else {
    const error = parsed.ok ? new Error('mcp_servers is not an array') : parsed.error;
    report({ table: 'sessions', sessionId: row.id, key: 'mcp_servers', error });
  }
  return {
    sessionId: row.id,
    cwd: row.cwd,
    title: row.title,
    mode: row.mode,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    mcpServers,
    parentSessionId: row.parent_id,
    ...(row.owner === null ? {} : { owner: row.owner }),
  };
}

/** The rows' JSON in order; a row that does not parse, or lacks its string discriminant, is reported and skipped. */
export function parseSeqRows<T>(
  table: 'messages' | 'events',
  sessionId: string,
  rows: SeqRow[],
  discriminant: 'role' | 'type',
  report: ReportCorrupt,
): T[] {
  const values: T[] = [];
  for (const row of rows) {
    const parsed = parseJsonColumn(row.text);
    const error = parsed.ok ? shapeError(parsed.value, discriminant) : parsed.error;
    if (error) report({ table, sessionId, key: row.seq, error });
    else values.push((parsed as { value: T }).value);
  }
  return values;
}

/** Calls whose args do not parse are skipped; an unreadable result leaves `result` undefined. */
export function toolCallsFromRows(sessionId: string, rows: ToolCallRow[], report: ReportCorrupt): StoredToolCall[] {
  const calls: StoredToolCall[] = [];
  for (const row of rows) {
    const args = parseJsonColumn(row.args);
    if (!args.ok) {
      report({ table: 'tool_calls', sessionId, key: row.tool_call_id, error: args.error });
      continue;
    }
    let result: unknown;
    if (row.result !== null) {
      const parsed = parseJsonColumn(row.result);
      if (parsed.ok) result = parsed.value;
      else report({ table: 'tool_calls', sessionId, key: row.tool_call_id, error: parsed.error });
    }
    calls.push({
      sessionId: row.session_id,
      toolCallId: row.tool_call_id,
      toolName: row.tool_name,
      args: args.value,
      status: row.status as StoredToolCallStatus,
      result,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
    });
  }
  return calls;
}

/** Why the value is not a stored message/event (`null` when it looks like one). */
function shapeError(value: unknown, discriminant: 'role' | 'type'): Error | null {
  if (typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[discriminant] === 'string') return null;
  return new Error(`not an object with a string "${discriminant}"`);
}
