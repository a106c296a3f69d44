import type { ModelMessage } from 'ai';
import type { LoadedEventRecord, NewSession, StoredEventRecord, StoredSession, StoredToolCall, StoredToolCallStatus } from './session-records.js';
import type { LeaseConflict } from './session-leases.js';
import type { StreamDraft } from './stream-drafts.js';
import type { A2aTaskRecords } from './a2a-task-records.js';

/**
 * The storage driver seam: what the agent core asks of a session store, as Promises, so a
 * driver may sit across a network (PostgreSQL) as well as in the process (SQLite, whose
 * driver answers from its synchronous store). Every method's contract is the one documented
 * on `SessionStore` (src/storage/session-store.ts); the store contract suite
 * (test/storage/store-contract.ts) holds each driver to it.
 */
export interface SessionStorage {
  /** Where it lives, for messages: a file path, or a URL without its password. */
  readonly location: string;
  /** Which process (replica) has each session open: one writer per session. */
  readonly leases: SessionStorageLeases;
  /** Settings a client chose for a session (model, reasoning effort, extra roots). */
  readonly settings: SessionStorageSettings;
  readonly isOpen: boolean;
  createSession(session: NewSession): Promise<StoredSession>;
  getSession(sessionId: string): Promise<StoredSession | undefined>;
  listSessions(options?: { cwd?: string; limit?: number }): Promise<StoredSession[]>;
  updateSession(sessionId: string, changes: { title?: string | null; mode?: string }): Promise<StoredSession | undefined>;
  deleteSession(sessionId: string): Promise<boolean>;
  appendMessages(sessionId: string, messages: readonly ModelMessage[]): Promise<void>;
  replaceMessages(sessionId: string, messages: readonly ModelMessage[]): Promise<void>;
  loadMessages(sessionId: string): Promise<ModelMessage[]>;
  appendEvents(sessionId: string, events: readonly StoredEventRecord[], draft?: { text: string; reasoning: string }): Promise<void>;
  recoverDraft(sessionId: string, fold: (draft: StreamDraft) => { messages: ModelMessage[]; events: StoredEventRecord[] }): Promise<boolean>;
  loadEvents(sessionId: string): Promise<LoadedEventRecord[]>;
  recordToolCall(call: { sessionId: string; toolCallId: string; toolName: string; args: unknown; status?: StoredToolCallStatus }): Promise<void>;
  finishToolCall(call: { sessionId: string; toolCallId: string; status: 'completed' | 'failed'; result: unknown }): Promise<boolean>;
  loadToolCalls(sessionId: string): Promise<StoredToolCall[]>;
  /** A new session (`target`, in `into`) holding a copy of `sourceId` as stored now, with `settings` over its own (session/fork). */
  forkSession(sourceId: string, target: NewSession, into: SessionStorage, settings: Record<string, unknown>): Promise<StoredSession>;
  /** Resolves when the store answers (what `/readyz` asks). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface SessionStorageLeases {
  /** Takes the session's lease (a new epoch); the conflict when another live holder has it. */
  acquire(sessionId: string): Promise<LeaseConflict | undefined>;
  /** Whether this process may still write the session (its epoch is the current one). */
  holds(sessionId: string): Promise<boolean>;
  /**
   * Whether another process that still lives (by the lease rule: a renewed heartbeat, a pid
   * alive on this host) holds the session's lease. Reads only: takes nothing, bumps no epoch.
   */
  heldByAnother(sessionId: string): Promise<boolean>;
  /** Forgets a lease another process took over, without touching its row. */
  forget(sessionId: string): void;
  release(sessionId: string): Promise<void>;
}

export interface SessionStorageSettings {
  get(sessionId: string): Promise<Record<string, unknown>>;
  set(sessionId: string, key: string, value: unknown): Promise<void>;
}

/** The stores an agent uses: one per project (SQLite files) or one for all (a database server). */
export interface SessionStores {
  /** The store that holds sessions whose cwd is `cwd`. */
  forProject(cwd: string): SessionStorage;
  /** Every store opened so far. */
  all(): SessionStorage[];
  /**
   * Drivers whose records replicas share (PostgreSQL): A2A tasks and contexts in the same
   * database. Absent for per-project files, whose A2A tables the adapter opens in the file.
   */
  a2aTasks?(): A2aTaskRecords;
  closeAll(): Promise<void>;
}
