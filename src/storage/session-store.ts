import { dirname, resolve } from 'node:path';
import type { ModelMessage } from 'ai';
import type { LoadedEventRecord, NewSession, StoredEventRecord, StoredSession, StoredToolCall, StoredToolCallStatus } from './session-records.js';
import { toJsonColumn } from './json-column.js';
import {
  parseSeqRows,
  sessionFromRow,
  toolCallsFromRows,
  type CorruptRow,
  type EventRow,
  type SeqRow,
  type SessionRow,
  type ToolCallRow,
  rowOfNewSession,
} from './session-rows.js';
import { migrateSessionSchema } from './session-schema.js';
import { openSqliteDatabase } from './sqlite/open-sqlite-database.js';
import type { SqliteDatabase, SqliteStatement } from './sqlite/sqlite-database.js';
import { prepareSessionStatements, type SessionStatements } from './session-statements.js';
import { readHistoryRows, writeHistoryRows } from './session-history-rows.js';
import { SessionLeases, type SessionLeaseOptions } from './session-leases.js';
import { StreamDrafts, type StreamDraft } from './stream-drafts.js';
import { StorageError } from './storage-error.js';
import { storageWriteError } from './storage-write-error.js';
import { storeOpenError } from './store-open-error.js';
import { damageGuardedDatabase } from './sqlite/damage-guarded-database.js';
import { ensureFolder } from './ensure-folder.js';
import { SessionSettings } from './session-settings.js';

export type { CorruptRow };

export interface SessionStoreOptions {
  /** Clock for timestamps (tests pin it); defaults to the wall clock. */
  now?: () => Date;
  /** Told about each unreadable row a load skipped. The store itself never logs. */
  onCorruptRow?: (row: CorruptRow) => void;
  /** How long a write waits for another process holding the lock (ms). */
  busyTimeoutMs?: number;
  /** Session leases' heartbeat and staleness (one writer process per session). */
  leases?: SessionLeaseOptions;
}

/**
 * Sessions, their model-facing messages, tool calls and replayable events, in one SQLite
 * file (WAL, so readers never block the writer and several processes can share it).
 * Synchronous on purpose: better-sqlite3 is, and every call is a few small statements.
 */
export class SessionStore {
  readonly path: string;
  private readonly db: SqliteDatabase;
  private readonly now: () => Date;
  private readonly onCorruptRow: ((row: CorruptRow) => void) | undefined;
  private readonly statements: SessionStatements;
  private readonly drafts: StreamDrafts;
  /** Which process has each session open (see SessionLeases). */
  readonly leases: SessionLeases;
  /** Settings a client chose for a session (model, reasoning effort, extra roots). */
  readonly settings: SessionSettings;
  private closed = false;

  constructor(path: string, options: SessionStoreOptions = {}) {
    this.path = path === ':memory:' ? path : resolve(path);
    this.now = options.now ?? (() => new Date());
    this.onCorruptRow = options.onCorruptRow;
    this.db = openDatabase(this.path, options.busyTimeoutMs ?? 5_000);
    try {
      migrateSessionSchema(this.db, this.path);
      this.statements = prepareSessionStatements(this.db);
      this.drafts = new StreamDrafts(this.db);
      this.leases = new SessionLeases(this.db, options.leases);
      this.settings = new SessionSettings(this.db);
    } catch (error) {
      this.db.close();
      throw storeOpenError('session store', this.path, error);
    }
  }

  /** `wal` for files, `memory` for ':memory:'. */
  journalMode(): string {
    return this.db.pragma('journal_mode', { simple: true }) as string;
  }

  createSession(session: NewSession): StoredSession {
    const stamp = this.timestamp();
    const row = rowOfNewSession(session, stamp);
    try {
      this.statements.insertSession.run(row);
    } catch (error) {
      if (isSqliteCode(error, 'SQLITE_CONSTRAINT_PRIMARYKEY')) {
        throw new StorageError('session_exists', `session ${session.sessionId} already exists in ${this.path}`, {
          path: this.path,
          sessionId: session.sessionId,
          cause: error,
        });
      }
      throw storageWriteError(error, this.path, session.sessionId);
    }
    return sessionFromRow(row, this.report);
  }

  getSession(sessionId: string): StoredSession | undefined {
    const row = this.statements.getSession.get(sessionId) as SessionRow | undefined;
    return row ? sessionFromRow(row, this.report) : undefined;
  }

  /** Most recently active first. */
  listSessions(options: { cwd?: string; limit?: number } = {}): StoredSession[] {
    const limit = options.limit ?? -1; // SQLite: a negative LIMIT means none
    const rows = (
      options.cwd === undefined
        ? this.statements.listSessions.all(limit)
        : this.statements.listSessionsByCwd.all(options.cwd, limit)
    ) as SessionRow[];
    return rows.map((row) => sessionFromRow(row, this.report));
  }

  /** Changes title and/or mode and marks the session active; `undefined` when it does not exist. */
  updateSession(sessionId: string, changes: { title?: string | null; mode?: string }): StoredSession | undefined {
    let result: { changes: number };
    try {
      result = this.fenced(sessionId, () =>
        this.statements.updateSession.run({
          id: sessionId,
          setTitle: changes.title === undefined ? 0 : 1,
          title: changes.title ?? null,
          mode: changes.mode ?? null,
          updatedAt: this.timestamp(),
        }),
      );
    } catch (error) {
      throw storageWriteError(error, this.path, sessionId);
    }
    return result.changes === 0 ? undefined : this.getSession(sessionId);
  }

  /**
   * A new session (`target`, in `into`: the store of its cwd, this one by default) holding a copy
   * of this store's session `sourceId` as stored now: its messages, events (plans, tool results)
   * and tool calls, and its settings with `settings` over them. One transaction in `into`: the
   * fork exists whole or not at all. Independent afterwards: nothing is shared.
   */
  forkSession(sourceId: string, target: NewSession, into: SessionStore = this, settings: Record<string, unknown> = {}): StoredSession {
    if (!this.getSession(sourceId)) throw this.notFound(sourceId);
    const rows = readHistoryRows(this.statements, sourceId, { ...this.settings.get(sourceId), ...settings });
    try {
      return into.db
        .transaction(() => {
          const created = into.createSession(target);
          writeHistoryRows(into.statements, created.sessionId, rows);
          for (const [key, value] of Object.entries(rows.settings)) if (value !== undefined) into.settings.set(created.sessionId, key, value);
          return created;
        })
        .immediate();
    } catch (error) {
      if (StorageError.isInstance(error)) throw error;
      throw storageWriteError(error, into.path, target.sessionId);
    }
  }

  /** Removes the session with its messages, tool calls and events. Returns whether it existed. */
  deleteSession(sessionId: string): boolean {
    return this.statements.deleteSession.run(sessionId).changes > 0;
  }

  /** Appends to the history; the streamed draft of the step they end is dropped in the same transaction. */
  appendMessages(sessionId: string, messages: readonly ModelMessage[]): void {
    this.appendRows(
      sessionId,
      messages,
      this.statements.nextMessageSeq,
      (seq, message) => this.statements.insertMessage.run(sessionId, seq, toJsonColumn(message)),
      () => this.drafts.clear(sessionId),
    );
  }

  /** Replaces the whole history (after compaction); events and tool calls stay. */
  replaceMessages(sessionId: string, messages: readonly ModelMessage[]): void {
    this.db
      .transaction(() => {
        this.touch(sessionId);
        this.statements.deleteMessages.run(sessionId);
        this.drafts.clear(sessionId);
        messages.forEach((message, seq) => this.statements.insertMessage.run(sessionId, seq, toJsonColumn(message)));
      })
      .immediate();
  }

  loadMessages(sessionId: string): ModelMessage[] {
    return parseSeqRows<ModelMessage>('messages', sessionId, this.statements.loadMessages.all(sessionId) as SeqRow[], 'role', this.report);
  }

  /**
   * Appends in one transaction: a reader sees all of the batch or none of it. `draft` is the
   * streamed reply text among them, added to the session's stream draft in the same transaction.
   */
  appendEvents(sessionId: string, events: readonly StoredEventRecord[], draft?: { text: string; reasoning: string }): void {
    const createdAt = this.timestamp();
    this.appendRows(
      sessionId,
      events,
      this.statements.nextEventSeq,
      (seq, event) => this.statements.insertEvent.run(sessionId, seq, event.type, toJsonColumn(event), createdAt),
      draft && (draft.text || draft.reasoning) ? () => this.drafts.append(sessionId, draft.text, draft.reasoning, createdAt) : undefined,
    );
  }

  /**
   * A draft left by a process that died mid-reply, turned into history by `fold` and
   * appended with it in one transaction; false when there was none.
   */
  recoverDraft(sessionId: string, fold: (draft: StreamDraft) => { messages: ModelMessage[]; events: StoredEventRecord[] }): boolean {
    return this.db
      .transaction(() => {
        const draft = this.drafts.get(sessionId);
        if (!draft) return false;
        const { messages, events } = fold(draft);
        this.appendEvents(sessionId, events);
        this.appendMessages(sessionId, messages);
        this.drafts.clear(sessionId);
        return true;
      })
      .immediate();
  }

  /** Every stored event in order, each carrying this session's id: what `session/load` replays. */
  loadEvents(sessionId: string): LoadedEventRecord[] {
    const rows = this.statements.loadEvents.all(sessionId) as EventRow[];
    return parseSeqRows<StoredEventRecord>('events', sessionId, rows, 'type', this.report).map((event) => ({ ...event, sessionId }));
  }

  /** Records a call as it starts; recording the same id again replaces it. */
  recordToolCall(call: {
    sessionId: string;
    toolCallId: string;
    toolName: string;
    args: unknown;
    status?: StoredToolCallStatus;
  }): void {
    const result = this.fenced(call.sessionId, () => this.statements.upsertToolCall.run({
      sessionId: call.sessionId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: toJsonColumn(call.args ?? null),
      status: call.status ?? 'in_progress',
      startedAt: this.timestamp(),
    }));
    if (result.changes === 0) throw this.notFound(call.sessionId);
  }

  /** Stores the outcome; returns false when no such call was recorded. */
  finishToolCall(call: { sessionId: string; toolCallId: string; status: 'completed' | 'failed'; result: unknown }): boolean {
    const update = this.fenced(call.sessionId, () => this.statements.finishToolCall.run({
      sessionId: call.sessionId,
      toolCallId: call.toolCallId,
      status: call.status,
      result: toJsonColumn(call.result ?? null),
      finishedAt: this.timestamp(),
    }));
    return update.changes > 0;
  }

  /** Tool calls in the order they started. */
  loadToolCalls(sessionId: string): StoredToolCall[] {
    return toolCallsFromRows(sessionId, this.statements.loadToolCalls.all(sessionId) as ToolCallRow[], this.report);
  }

  /** Idempotent. The last connection to close folds the WAL back into the main file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.leases.releaseAll();
    this.db.close();
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  private appendRows<T>(
    sessionId: string,
    rows: readonly T[],
    nextSeq: SqliteStatement,
    insert: (seq: number, row: T) => void,
    after?: () => void,
  ): void {
    if (rows.length === 0) {
      if (!this.statements.getSession.get(sessionId)) throw this.notFound(sessionId);
      return;
    }
    // IMMEDIATE: take the write lock before reading MAX(seq), so two processes
    // appending to one file never compute the same seq (and never hit BUSY_SNAPSHOT).
    try {
      this.db
        .transaction(() => {
          this.touch(sessionId);
          let seq = (nextSeq.get(sessionId) as { next: number }).next;
          for (const row of rows) insert(seq++, row);
          after?.();
        })
        .immediate();
    } catch (error) {
      throw storageWriteError(error, this.path, sessionId);
    }
  }

  /** One statement in a transaction with the lease fence (see `touch`). */
  private fenced<T>(sessionId: string, write: () => T): T {
    return this.db
      .transaction(() => {
        this.leases.assertHeld(sessionId, this.path);
        return write();
      })
      .immediate();
  }

  /**
   * Marks the session active; throws when it does not exist, and `session_in_use` when this
   * process lost the session's lease (checked in the caller's transaction: every write is fenced).
   */
  private touch(sessionId: string): void {
    this.leases.assertHeld(sessionId, this.path);
    if (this.statements.touchSession.run(this.timestamp(), sessionId).changes === 0) throw this.notFound(sessionId);
  }

  /** Bound: handed to the row parsers in session-rows.ts. */
  private readonly report = (row: CorruptRow): void => {
    try {
      this.onCorruptRow?.(row);
    } catch {
      // A failing observer must not turn a tolerated corrupt row into a failed load.
    }
  };

  private notFound(sessionId: string): StorageError {
    return new StorageError('session_not_found', `no session ${sessionId} in ${this.path}`, { path: this.path, sessionId });
  }

  private timestamp(): string {
    return this.now().toISOString();
  }
}

function openDatabase(path: string, busyTimeoutMs: number): SqliteDatabase {
  let db: SqliteDatabase | undefined;
  try {
    if (path !== ':memory:') ensureFolder(dirname(path));
    db = openSqliteDatabase(path);
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    return damageGuardedDatabase(db, 'session store', path);
  } catch (error) {
    db?.close();
    throw storeOpenError('session store', path, error);
  }
}

function isSqliteCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

