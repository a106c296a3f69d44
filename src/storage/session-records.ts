/**
 * What the session store keeps, in its own terms. Storage is below the agent core: these are
 * plain JSON records, and the core maps its typed sessions and events onto them (see
 * src/agent/session-record-mapping.ts), so storage never imports from src/agent.
 */

/** An MCP server a session was created with, stored as the JSON the client sent. */
export type StoredMcpServerRecord = { readonly [field: string]: unknown };

/** A persisted event: any JSON object with a string `type` (the core's event union fits). */
export type StoredEventRecord = { readonly type: string; readonly [field: string]: unknown };

/** A loaded event, stamped with the id of the session it was loaded from. */
export type LoadedEventRecord = StoredEventRecord & { readonly sessionId: string };

export type StoredToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

/** A session row. `mode` is whatever the core stored; the core validates it when loading. */
export interface StoredSession {
  sessionId: string;
  cwd: string;
  title: string | null;
  mode: string;
  createdAt: string;
  updatedAt: string;
  mcpServers: StoredMcpServerRecord[];
  /** The principal that created it; absent for the local user. */
  owner?: string;
  /** Set on sub-agent sessions. */
  parentSessionId: string | null;
}

export interface NewSession {
  sessionId: string;
  cwd: string;
  title?: string | null;
  mode?: string;
  parentSessionId?: string | null;
  mcpServers?: readonly StoredMcpServerRecord[];
  /** The principal that created it; `null`/absent for the local user. */
  owner?: string | null;
}

export interface StoredToolCall {
  sessionId: string;
  toolCallId: string;
  toolName: string;
  args: unknown;
  status: StoredToolCallStatus;
  /** `undefined` until the call finishes (or when the stored result was unreadable). */
  result: unknown;
  startedAt: string;
  finishedAt: string | null;
}
