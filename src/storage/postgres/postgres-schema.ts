import type { Pool } from 'pg';
import { StorageError } from '../storage-error.js';
import { A2A_TASKS_MIGRATION } from './postgres-a2a-tasks.js';

/**
 * The PostgreSQL schema, as ordered migrations (the SQLite file's tables, with an `ord`
 * identity column where SQLite orders by rowid). `plaited_schema` records each version
 * applied; a new release appends a step and never edits an old one.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    ord BIGINT GENERATED ALWAYS AS IDENTITY,
    cwd TEXT NOT NULL,
    title TEXT,
    mode TEXT NOT NULL DEFAULT 'default',
    parent_id TEXT,
    mcp_servers TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    owner TEXT,
    lease_epoch INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at);
  CREATE INDEX sessions_by_updated ON sessions (updated_at);
  CREATE INDEX sessions_by_parent ON sessions (parent_id);
  CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE TABLE tool_calls (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    tool_call_id TEXT NOT NULL,
    ord BIGINT GENERATED ALWAYS AS IDENTITY,
    tool_name TEXT NOT NULL,
    args TEXT NOT NULL,
    status TEXT NOT NULL,
    result TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    PRIMARY KEY (session_id, tool_call_id)
  );
  CREATE TABLE events (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE TABLE stream_draft_chunks (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    reasoning TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  -- heartbeat_at: the database's clock (ms), so replicas' clocks need not agree.
  CREATE TABLE session_leases (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    holder TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    pid_namespace TEXT NOT NULL,
    heartbeat_at BIGINT NOT NULL
  );
  CREATE TABLE session_settings (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (session_id, key)
  );
  `,
  // 2: A2A tasks and contexts, shared by the replicas (postgres-a2a-tasks.ts).
  A2A_TASKS_MIGRATION,
  // 3: the lease epoch its writer held when it wrote each message and event (NULL: written without
  // a lease, as a fork's copy is): the record itself shows that no two writers served a session at once.
  `
  ALTER TABLE messages ADD COLUMN lease_epoch INTEGER;
  ALTER TABLE events ADD COLUMN lease_epoch INTEGER;
  `,
];

export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** The advisory lock every replica takes to migrate: one migrates, the others wait and then find nothing to do. */
const MIGRATION_LOCK = 0x706c6169; // 'plai'

/**
 * Brings the database up to the current schema in one transaction under a transaction-level
 * advisory lock: replicas starting at once run the steps exactly once, and a failed step leaves
 * nothing half-applied (PostgreSQL's DDL is transactional).
 */
export async function migratePostgresSchema(pool: Pool, location: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS plaited_schema (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ version: number }>('SELECT COALESCE(MAX(version), 0)::int AS version FROM plaited_schema');
    const current = rows[0]?.version ?? 0;
    if (current > MIGRATIONS.length) {
      throw new StorageError(
        'schema_too_new',
        `${location} has session schema version ${current}; this plaited-agent knows up to ${MIGRATIONS.length}. Upgrade plaited-agent or use another database.`,
        { path: location },
      );
    }
    for (let version = current; version < MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version]!);
      await client.query('INSERT INTO plaited_schema (version) VALUES ($1)', [version + 1]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
