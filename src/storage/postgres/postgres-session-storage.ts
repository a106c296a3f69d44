import type { ModelMessage } from 'ai';
import type { Pool, PoolClient } from 'pg';
import type { LoadedEventRecord, NewSession, StoredEventRecord, StoredSession, StoredToolCall, StoredToolCallStatus } from '../session-records.js';
import type { SessionStorage, SessionStorageSettings } from '../session-storage.js';
import type { SessionLeaseOptions } from '../session-leases.js';
import type { StreamDraft } from '../stream-drafts.js';
import { toJsonColumn } from '../json-column.js';
import { parseSeqRows, rowOfNewSession, sessionFromRow, toolCallsFromRows, type CorruptRow, type EventRow, type SeqRow, type SessionRow, type ToolCallRow } from '../session-rows.js';
import { StorageError } from '../storage-error.js';
import { copySession } from '../copy-session.js';
import { PostgresLeases } from './postgres-leases.js';
import { postgresTransaction } from './postgres-transaction.js';
import { postgresWriteError } from './postgres-write-error.js';
import { postgresSettings } from './postgres-settings.js';
import { PostgresSessionEvents, SESSION_EVENTS_CHANNEL } from './postgres-session-events.js';
import type { PostgresListener } from './postgres-listener.js';

export interface PostgresStorageOptions {
  now?: () => Date;
  onCorruptRow?: (row: CorruptRow) => void;
  leases?: SessionLeaseOptions;
}

const SESSION_COLUMNS = 'id, cwd, title, mode, parent_id, mcp_servers, created_at, updated_at, owner';

/**
 * The session store on PostgreSQL, shared by every replica that opens the same database: the
 * contract of `SessionStore` (src/storage/session-store.ts) with the same rows and JSON text.
 * Every write of a session runs in one transaction that first locks the session's row: appends
 * from two replicas never compute the same `seq`, and the lease epoch is checked under that lock.
 */
export class PostgresSessionStorage implements SessionStorage {
  readonly leases: PostgresLeases;
  readonly settings: SessionStorageSettings;
  /** Set when a LISTEN connection was given: other replicas' appends, through LISTEN/NOTIFY. */
  readonly feed: PostgresSessionEvents | undefined;
  readonly #now: () => Date;
  readonly #onCorruptRow: ((row: CorruptRow) => void) | undefined;
  #closed = false;

  constructor(
    private readonly pool: Pool,
    readonly location: string,
    options: PostgresStorageOptions = {},
    /** The replica's LISTEN connection, for other replicas' appends. */
    listener?: PostgresListener,
  ) {
    this.#now = options.now ?? (() => new Date());
    this.#onCorruptRow = options.onCorruptRow;
    this.leases = new PostgresLeases(pool, location, options.leases);
    this.settings = postgresSettings(pool);
    this.feed = listener === undefined ? undefined : new PostgresSessionEvents(listener, pool, this.leases, this.#report);
  }

  get isOpen(): boolean {
    return !this.#closed;
  }

  /** Written through the seam (copy-session.ts); a half-made fork is deleted. */
  async forkSession(sourceId: string, target: NewSession, into: SessionStorage, settings: Record<string, unknown>): Promise<StoredSession> {
    return copySession(this, sourceId, target, into, settings);
  }

  async createSession(session: NewSession): Promise<StoredSession> {
    const stamp = this.#timestamp();
    const row = rowOfNewSession(session, stamp);
    try {
      await this.pool.query(`INSERT INTO sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
        row.id, row.cwd, row.title, row.mode, row.parent_id, row.mcp_servers, row.created_at, row.updated_at, row.owner,
      ]);
    } catch (error) {
      if ((error as { code?: unknown }).code === '23505') {
        throw new StorageError('session_exists', `session ${session.sessionId} already exists in ${this.location}`, {
          path: this.location,
          sessionId: session.sessionId,
          cause: error,
        });
      }
      throw postgresWriteError(error, this.location, session.sessionId);
    }
    return sessionFromRow(row, this.#report);
  }

  async getSession(sessionId: string): Promise<StoredSession | undefined> {
    const { rows } = await this.pool.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1`, [sessionId]);
    return rows[0] ? sessionFromRow(rows[0], this.#report) : undefined;
  }

  async listSessions(options: { cwd?: string; limit?: number } = {}): Promise<StoredSession[]> {
    const { rows } = await this.pool.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE ($1::text IS NULL OR cwd = $1) ORDER BY updated_at DESC, ord DESC LIMIT $2`,
      [options.cwd ?? null, options.limit ?? null],
    );
    return rows.map((row) => sessionFromRow(row, this.#report));
  }

  async updateSession(sessionId: string, changes: { title?: string | null; mode?: string }): Promise<StoredSession | undefined> {
    const updated = await this.#write(sessionId, async (client) => {
      if (!(await this.leases.lockAndAssertHeld(client, sessionId))) return false;
      await client.query(
        'UPDATE sessions SET title = CASE WHEN $2 THEN $3 ELSE title END, mode = COALESCE($4, mode), updated_at = $5 WHERE id = $1',
        [sessionId, changes.title !== undefined, changes.title ?? null, changes.mode ?? null, this.#timestamp()],
      );
      return true;
    });
    return updated ? this.getSession(sessionId) : undefined;
  }

  async deleteSession(sessionId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM sessions WHERE id = $1', [sessionId]);
    return (rowCount ?? 0) > 0;
  }

  async appendMessages(sessionId: string, messages: readonly ModelMessage[]): Promise<void> {
    if (messages.length === 0) return this.#assertExists(sessionId);
    await this.#write(sessionId, async (client) => {
      const epoch = await this.#touch(client, sessionId);
      await this.#insertMessages(client, sessionId, messages, epoch);
    });
  }

  async replaceMessages(sessionId: string, messages: readonly ModelMessage[]): Promise<void> {
    await this.#write(sessionId, async (client) => {
      const epoch = await this.#touch(client, sessionId);
      await client.query('DELETE FROM messages WHERE session_id = $1', [sessionId]);
      if (messages.length === 0) await client.query('DELETE FROM stream_draft_chunks WHERE session_id = $1', [sessionId]);
      await this.#insertMessages(client, sessionId, messages, epoch);
    });
  }

  async loadMessages(sessionId: string): Promise<ModelMessage[]> {
    const { rows } = await this.pool.query<SeqRow>('SELECT seq, message AS text FROM messages WHERE session_id = $1 ORDER BY seq', [sessionId]);
    return parseSeqRows<ModelMessage>('messages', sessionId, rows, 'role', this.#report);
  }

  async appendEvents(sessionId: string, events: readonly StoredEventRecord[], draft?: { text: string; reasoning: string }): Promise<void> {
    if (events.length === 0) return this.#assertExists(sessionId);
    await this.#write(sessionId, async (client) => {
      const epoch = await this.#touch(client, sessionId);
      await this.#insertEvents(client, sessionId, events, epoch);
      if (draft && (draft.text || draft.reasoning)) {
        await client.query(
          `INSERT INTO stream_draft_chunks (session_id, seq, text, reasoning, updated_at)
           SELECT $1, COALESCE(MAX(seq) + 1, 0), $2, $3, $4 FROM stream_draft_chunks WHERE session_id = $1`,
          [sessionId, draft.text, draft.reasoning, this.#timestamp()],
        );
      }
    });
  }

  async recoverDraft(sessionId: string, fold: (draft: StreamDraft) => { messages: ModelMessage[]; events: StoredEventRecord[] }): Promise<boolean> {
    return this.#write(sessionId, async (client) => {
      const lock = await this.leases.lockAndAssertHeld(client, sessionId);
      if (!lock) return false;
      const { rows } = await client.query<StreamDraft>(
        'SELECT text, reasoning, updated_at AS "updatedAt" FROM stream_draft_chunks WHERE session_id = $1 ORDER BY seq',
        [sessionId],
      );
      if (rows.length === 0) return false;
      const { messages, events } = fold({
        text: rows.map((piece) => piece.text).join(''),
        reasoning: rows.map((piece) => piece.reasoning).join(''),
        updatedAt: rows[rows.length - 1]!.updatedAt,
      });
      await this.#touch(client, sessionId);
      await this.#insertEvents(client, sessionId, events, lock.epoch);
      if (messages.length === 0) await client.query('DELETE FROM stream_draft_chunks WHERE session_id = $1', [sessionId]);
      await this.#insertMessages(client, sessionId, messages, lock.epoch);
      return true;
    });
  }

  async loadEvents(sessionId: string): Promise<LoadedEventRecord[]> {
    const { rows } = await this.pool.query<EventRow>('SELECT seq, type, data AS text FROM events WHERE session_id = $1 ORDER BY seq', [sessionId]);
    return parseSeqRows<StoredEventRecord>('events', sessionId, rows, 'type', this.#report).map((event) => ({ ...event, sessionId }));
  }

  async recordToolCall(call: { sessionId: string; toolCallId: string; toolName: string; args: unknown; status?: StoredToolCallStatus }): Promise<void> {
    await this.#write(call.sessionId, async (client) => {
      if (!(await this.leases.lockAndAssertHeld(client, call.sessionId))) throw this.#notFound(call.sessionId);
      await client.query(
        `INSERT INTO tool_calls (session_id, tool_call_id, tool_name, args, status, result, started_at, finished_at)
         VALUES ($1, $2, $3, $4, $5, NULL, $6, NULL)
         ON CONFLICT (session_id, tool_call_id) DO UPDATE SET tool_name = excluded.tool_name, args = excluded.args,
           status = excluded.status, result = NULL, started_at = excluded.started_at, finished_at = NULL`,
        [call.sessionId, call.toolCallId, call.toolName, toJsonColumn(call.args ?? null), call.status ?? 'in_progress', this.#timestamp()],
      );
    });
  }

  async finishToolCall(call: { sessionId: string; toolCallId: string; status: 'completed' | 'failed'; result: unknown }): Promise<boolean> {
    return this.#write(call.sessionId, async (client) => {
      if (!(await this.leases.lockAndAssertHeld(client, call.sessionId))) return false;
      const { rowCount } = await client.query(
        'UPDATE tool_calls SET status = $3, result = $4, finished_at = $5 WHERE session_id = $1 AND tool_call_id = $2',
        [call.sessionId, call.toolCallId, call.status, toJsonColumn(call.result ?? null), this.#timestamp()],
      );
      return (rowCount ?? 0) > 0;
    });
  }

  async loadToolCalls(sessionId: string): Promise<StoredToolCall[]> {
    const { rows } = await this.pool.query<ToolCallRow>(
      'SELECT session_id, tool_call_id, tool_name, args, status, result, started_at, finished_at FROM tool_calls WHERE session_id = $1 ORDER BY started_at, ord',
      [sessionId],
    );
    return toolCallsFromRows(sessionId, rows, this.#report);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  /** Releases this replica's leases; the pool is closed by its owner (`PostgresSessionStores`). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.leases.releaseAll();
  }

  /** A session's write in one transaction, failures in the store's own errors. */
  async #write<T>(sessionId: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    try {
      return await postgresTransaction(this.pool, work);
    } catch (error) {
      throw postgresWriteError(error, this.location, sessionId);
    }
  }

  /** Locks the session's row (fenced by its lease) and marks it active; throws when it does not exist. Returns the epoch written under. */
  async #touch(client: PoolClient, sessionId: string): Promise<number | null> {
    const lock = await this.leases.lockAndAssertHeld(client, sessionId, this.#timestamp());
    if (!lock) throw this.#notFound(sessionId);
    return lock.epoch;
  }

  /** Appends the messages, which end any streamed draft: the draft's pieces go in the same statement (one round trip). */
  async #insertMessages(client: PoolClient, sessionId: string, messages: readonly ModelMessage[], epoch: number | null): Promise<void> {
    if (messages.length === 0) return;
    await client.query(
      `WITH cleared AS (DELETE FROM stream_draft_chunks WHERE session_id = $1)
       INSERT INTO messages (session_id, seq, message, lease_epoch)
       SELECT $1, base.next + item.ord - 1, item.message, $3
       FROM (SELECT COALESCE(MAX(seq) + 1, 0) AS next FROM messages WHERE session_id = $1) AS base,
            unnest($2::text[]) WITH ORDINALITY AS item (message, ord)`,
      [sessionId, messages.map((message) => toJsonColumn(message)), epoch],
    );
  }

  async #insertEvents(client: PoolClient, sessionId: string, events: readonly StoredEventRecord[], epoch: number | null): Promise<void> {
    if (events.length === 0) return;
    // One round trip: the rows, and the notice delivered at commit to every replica's feed (the
    // session and its last seq, the rows read by the listener).
    await client.query(
      `WITH inserted AS (
         INSERT INTO events (session_id, seq, type, data, created_at, lease_epoch)
         SELECT $1, base.next + item.ord - 1, item.type, item.data, $4, $5
         FROM (SELECT COALESCE(MAX(seq) + 1, 0) AS next FROM events WHERE session_id = $1) AS base,
              unnest($2::text[], $3::text[]) WITH ORDINALITY AS item (type, data, ord)
         RETURNING seq)
       SELECT pg_notify('${SESSION_EVENTS_CHANNEL}', $1::text || ' ' || (SELECT MAX(seq) FROM inserted)::text)`,
      [sessionId, events.map((event) => event.type), events.map((event) => toJsonColumn(event)), this.#timestamp(), epoch],
    );
  }

  readonly #report = (row: CorruptRow): void => {
    try {
      this.#onCorruptRow?.(row);
    } catch {
      // A failing observer must not turn a tolerated corrupt row into a failed load.
    }
  };

  async #assertExists(sessionId: string): Promise<void> {
    if (!(await this.getSession(sessionId))) throw this.#notFound(sessionId);
  }

  #notFound(sessionId: string): StorageError {
    return new StorageError('session_not_found', `no session ${sessionId} in ${this.location}`, { path: this.location, sessionId });
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }
}
