import { dirname, resolve } from 'node:path';
import { openSqliteDatabase } from './sqlite/open-sqlite-database.js';
import type { SqliteDatabase } from './sqlite/sqlite-database.js';
import { storeOpenError } from './store-open-error.js';
import { damageGuardedDatabase } from './sqlite/damage-guarded-database.js';
import { FINAL_TASK_STATES, type A2aContextRecord, type A2aTaskQuery, type A2aTaskRecord } from './a2a-task-records.js';
import { ensureFolder } from './ensure-folder.js';

export type { A2aTaskRecord, A2aTaskQuery, A2aContextRecord } from './a2a-task-records.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS a2a_tasks (
    task_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    context_id TEXT NOT NULL,
    state TEXT NOT NULL,
    json TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (owner, task_id)
  );
  CREATE INDEX IF NOT EXISTS a2a_tasks_by_context ON a2a_tasks (owner, context_id, updated_at);
  CREATE TABLE IF NOT EXISTS a2a_contexts (
    context_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    session_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (owner, context_id)
  );
`;

type TaskRow = { task_id: string; owner: string; context_id: string; state: string; json: string; updated_at: string };
type ContextRow = { context_id: string; owner: string; session_id: string; created_at: string };

/**
 * A2A tasks and context→session bindings in the project's SQLite state file, beside the
 * sessions (own tables, created if missing; the session schema's version is not touched).
 * Synchronous like the session store: every call is one small statement.
 */
export class A2aTaskStore {
  readonly path: string;
  private readonly db: SqliteDatabase;
  private readonly now: () => Date;

  constructor(path: string, options: { now?: () => Date; busyTimeoutMs?: number } = {}) {
    this.path = path === ':memory:' ? path : resolve(path);
    this.now = options.now ?? (() => new Date());
    try {
      if (this.path !== ':memory:') ensureFolder(dirname(this.path));
      this.db = damageGuardedDatabase(openSqliteDatabase(this.path), 'A2A task store', this.path);
    } catch (error) {
      throw storeOpenError('A2A task store', this.path, error);
    }
    try {
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5_000))}`);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(SCHEMA);
    } catch (error) {
      this.db.close();
      throw storeOpenError('A2A task store', this.path, error);
    }
  }

  /** `false` when the stored task is final, which no save changes (the upsert's WHERE: one statement, so atomic). */
  saveTask(record: Omit<A2aTaskRecord, 'updatedAt'>): boolean {
    const finals = FINAL_TASK_STATES.map(() => '?').join(', ');
    const { changes } = this.db
      .prepare(
        `INSERT INTO a2a_tasks (task_id, owner, context_id, state, json, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (owner, task_id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state, json = excluded.json, updated_at = excluded.updated_at
         WHERE a2a_tasks.state NOT IN (${finals})`,
      )
      .run(record.taskId, record.owner, record.contextId, record.state, record.json, this.now().toISOString(), ...FINAL_TASK_STATES);
    return changes > 0;
  }

  loadTask(taskId: string, owner: string): A2aTaskRecord | undefined {
    const row = this.db.prepare('SELECT * FROM a2a_tasks WHERE owner = ? AND task_id = ?').get(owner, taskId) as TaskRow | undefined;
    return row && toTask(row);
  }

  /** Newest first; `total` counts every match, not only this page. */
  listTasks(query: A2aTaskQuery): { tasks: A2aTaskRecord[]; total: number } {
    const where = ['owner = ?'];
    const args: unknown[] = [query.owner];
    if (query.contextId) {
      where.push('context_id = ?');
      args.push(query.contextId);
    }
    if (query.state) {
      where.push('state = ?');
      args.push(query.state);
    }
    if (query.updatedAfter) {
      where.push('updated_at > ?');
      args.push(query.updatedAfter);
    }
    const clause = where.join(' AND ');
    const total = (this.db.prepare(`SELECT count(*) AS n FROM a2a_tasks WHERE ${clause}`).get(...args) as { n: number }).n;
    const rows = this.db
      .prepare(`SELECT * FROM a2a_tasks WHERE ${clause} ORDER BY updated_at DESC, task_id LIMIT ? OFFSET ?`)
      .all(...args, query.limit, query.offset) as TaskRow[];
    return { tasks: rows.map(toTask), total };
  }

  /** Tasks of any owner whose state is one of `states` (restart recovery: tasks no process runs any more). */
  tasksInStates(states: readonly string[]): A2aTaskRecord[] {
    if (states.length === 0) return [];
    const marks = states.map(() => '?').join(', ');
    return (this.db.prepare(`SELECT * FROM a2a_tasks WHERE state IN (${marks})`).all(...states) as TaskRow[]).map(toTask);
  }

  contextSession(contextId: string, owner: string): A2aContextRecord | undefined {
    const row = this.db.prepare('SELECT * FROM a2a_contexts WHERE owner = ? AND context_id = ?').get(owner, contextId) as ContextRow | undefined;
    return row && { contextId: row.context_id, owner: row.owner, sessionId: row.session_id, createdAt: row.created_at };
  }

  bindContext(contextId: string, owner: string, sessionId: string): void {
    this.db
      .prepare('INSERT OR REPLACE INTO a2a_contexts (context_id, owner, session_id, created_at) VALUES (?, ?, ?, ?)')
      .run(contextId, owner, sessionId, this.now().toISOString());
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function toTask(row: TaskRow): A2aTaskRecord {
  return { taskId: row.task_id, owner: row.owner, contextId: row.context_id, state: row.state, json: row.json, updatedAt: row.updated_at };
}
