import type { Pool } from 'pg';
import { FINAL_TASK_STATES, type A2aContextRecord, type A2aTaskQuery, type A2aTaskRecord, type A2aTaskRecords } from '../a2a-task-records.js';
import { StorageError } from '../storage-error.js';
import { errorMessage } from '../../errors/error-message.js';
import type { PostgresListener } from './postgres-listener.js';

/** The channel every save of an A2A task is announced on; the payload is the task id (or `cancel:` and the id, a request to cancel it). */
export const A2A_TASK_CHANNEL = 'plaited_a2a_task';
const CANCEL_PREFIX = 'cancel:';

/**
 * The A2A tables (migration step 2): the SQLite file's tables, with `updated_at` written from
 * the database's clock so listings and `updatedAfter` filters agree whichever replica wrote.
 */
export const A2A_TASKS_MIGRATION = `
  CREATE TABLE a2a_tasks (
    task_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    context_id TEXT NOT NULL,
    state TEXT NOT NULL,
    json TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (owner, task_id)
  );
  CREATE INDEX a2a_tasks_by_context ON a2a_tasks (owner, context_id, updated_at);
  CREATE INDEX a2a_tasks_by_state ON a2a_tasks (state);
  CREATE TABLE a2a_contexts (
    context_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    session_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (owner, context_id)
  );
`;

/** The database's clock as the ISO form the SQLite store writes (`Date.toISOString`). */
const DB_ISO_NOW = `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

type TaskRow = { task_id: string; owner: string; context_id: string; state: string; json: string; updated_at: string };
type ContextRow = { context_id: string; owner: string; session_id: string; created_at: string };

/**
 * A2A task records in the PostgreSQL database the replicas share, on the session store's pool.
 * Every save announces the task id on {@link A2A_TASK_CHANNEL} (in the same statement, so the
 * notice goes out exactly when the row is committed): replicas watching the task re-read it.
 */
export class PostgresA2aTaskRecords implements A2aTaskRecords {
  readonly shared = true;

  constructor(
    private readonly pool: Pool,
    readonly location: string,
    private readonly feed: PostgresListener,
  ) {}

  /**
   * `false` when the stored task is final: the upsert's WHERE is checked on the row's latest
   * committed version under its row lock, so no replica's save undoes another's final state, and
   * a save that changed nothing is not announced.
   */
  async saveTask(record: Omit<A2aTaskRecord, 'updatedAt'>): Promise<boolean> {
    const { rowCount } = await this.pool
      .query(
        `WITH saved AS (
           INSERT INTO a2a_tasks (task_id, owner, context_id, state, json, updated_at) VALUES ($1, $2, $3, $4, $5, ${DB_ISO_NOW})
           ON CONFLICT (owner, task_id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state, json = excluded.json, updated_at = excluded.updated_at
           WHERE a2a_tasks.state <> ALL($6::text[])
           RETURNING task_id)
         SELECT pg_notify('${A2A_TASK_CHANNEL}', task_id) FROM saved`,
        [record.taskId, record.owner, record.contextId, record.state, record.json, [...FINAL_TASK_STATES]],
      )
      .catch((error: unknown) => {
        throw writeFailed(error, this.location, `A2A task ${record.taskId}`);
      });
    return (rowCount ?? 0) > 0;
  }

  async loadTask(taskId: string, owner: string): Promise<A2aTaskRecord | undefined> {
    const { rows } = await this.pool.query<TaskRow>('SELECT * FROM a2a_tasks WHERE owner = $1 AND task_id = $2', [owner, taskId]);
    return rows[0] && toTask(rows[0]);
  }

  async listTasks(query: A2aTaskQuery): Promise<{ tasks: A2aTaskRecord[]; total: number }> {
    const where = ['owner = $1'];
    const args: unknown[] = [query.owner];
    const filter = (column: string, operator: string, value: string | undefined) => {
      if (!value) return;
      args.push(value);
      where.push(`${column} ${operator} $${args.length}`);
    };
    filter('context_id', '=', query.contextId);
    filter('state', '=', query.state);
    filter('updated_at', '>', query.updatedAfter);
    const clause = where.join(' AND ');
    const total = await this.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM a2a_tasks WHERE ${clause}`, args);
    const { rows } = await this.pool.query<TaskRow>(
      `SELECT * FROM a2a_tasks WHERE ${clause} ORDER BY updated_at DESC, task_id LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
      [...args, query.limit, query.offset],
    );
    return { tasks: rows.map(toTask), total: total.rows[0]?.n ?? 0 };
  }

  async tasksInStates(states: readonly string[]): Promise<A2aTaskRecord[]> {
    if (states.length === 0) return [];
    const { rows } = await this.pool.query<TaskRow>('SELECT * FROM a2a_tasks WHERE state = ANY($1::text[])', [[...states]]);
    return rows.map(toTask);
  }

  async contextSession(contextId: string, owner: string): Promise<A2aContextRecord | undefined> {
    const { rows } = await this.pool.query<ContextRow>('SELECT * FROM a2a_contexts WHERE owner = $1 AND context_id = $2', [owner, contextId]);
    const row = rows[0];
    return row && { contextId: row.context_id, owner: row.owner, sessionId: row.session_id, createdAt: row.created_at };
  }

  async bindContext(contextId: string, owner: string, sessionId: string): Promise<void> {
    await this.pool
      .query(
        `INSERT INTO a2a_contexts (context_id, owner, session_id, created_at) VALUES ($1, $2, $3, ${DB_ISO_NOW})
         ON CONFLICT (owner, context_id) DO UPDATE SET session_id = excluded.session_id, created_at = excluded.created_at`,
        [contextId, owner, sessionId],
      )
      .catch((error: unknown) => {
        throw writeFailed(error, this.location, `A2A context ${contextId}`);
      });
  }

  watchTask(taskId: string, listener: () => void): () => void {
    const stop = this.feed.watch(A2A_TASK_CHANNEL, taskId, listener);
    // A save made before the feed listened was not heard: the watcher looks once it listens.
    void this.feed.listening().then(listener, () => undefined);
    return stop;
  }

  async requestCancel(taskId: string): Promise<void> {
    await this.pool.query(`SELECT pg_notify('${A2A_TASK_CHANNEL}', $1)`, [`${CANCEL_PREFIX}${taskId}`]);
  }

  watchCancel(taskId: string, listener: () => void): () => void {
    return this.feed.watch(A2A_TASK_CHANNEL, `${CANCEL_PREFIX}${taskId}`, listener, { onListen: false });
  }

  /** The pool and the change feed are the session stores' (closed with them). */
  async close(): Promise<void> {}
}

function toTask(row: TaskRow): A2aTaskRecord {
  return { taskId: row.task_id, owner: row.owner, contextId: row.context_id, state: row.state, json: row.json, updatedAt: row.updated_at };
}

function writeFailed(error: unknown, location: string, what: string): StorageError {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return new StorageError('write_failed', `cannot write ${what} to ${location}: ${errorMessage(error)}${typeof code === 'string' ? ` (${code})` : ''}`, { path: location, cause: error });
}
