import type { SessionStatements } from './session-statements.js';
import type { ToolCallRow } from './session-rows.js';

/** One session's stored history as rows: what a fork copies. */
export interface SessionHistoryRows {
  messages: Array<{ seq: number; message: string }>;
  events: Array<{ seq: number; type: string; data: string; created_at: string }>;
  toolCalls: ToolCallRow[];
  settings: Record<string, unknown>;
}

/** Reads a session's history rows as stored (JSON text untouched). */
export function readHistoryRows(statements: SessionStatements, sessionId: string, settings: Record<string, unknown>): SessionHistoryRows {
  return {
    messages: statements.copyMessageRows.all(sessionId) as SessionHistoryRows['messages'],
    events: statements.copyEventRows.all(sessionId) as SessionHistoryRows['events'],
    toolCalls: statements.loadToolCalls.all(sessionId) as ToolCallRow[],
    settings,
  };
}

/** Writes history rows under `sessionId` (in the caller's transaction, after its session row). */
export function writeHistoryRows(statements: SessionStatements, sessionId: string, rows: SessionHistoryRows): void {
  for (const row of rows.messages) statements.insertMessage.run(sessionId, row.seq, row.message);
  for (const row of rows.events) {
    statements.insertEventRow.run({ sessionId, seq: row.seq, type: row.type, data: row.data, createdAt: row.created_at });
  }
  for (const row of rows.toolCalls) {
    statements.insertToolCallRow.run({
      sessionId,
      toolCallId: row.tool_call_id,
      toolName: row.tool_name,
      args: row.args,
      status: row.status,
      result: row.result,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
    });
  }
}
