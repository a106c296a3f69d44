import type { SqliteDatabase } from './sqlite/sqlite-database.js';
import { StorageError } from './storage-error.js';

/**
 * The session store's schema, as an ordered list of migrations. `PRAGMA user_version`
 * holds how many have run; a new version appends a step here and never edits an old one,
 * so a file written by any earlier release upgrades in place.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    cwd TEXT NOT NULL,
    title TEXT,
    mode TEXT NOT NULL DEFAULT 'default',
    parent_id TEXT,
    mcp_servers TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at);
  CREATE INDEX sessions_by_updated ON sessions (updated_at);
  CREATE INDEX sessions_by_parent ON sessions (parent_id);

  CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) WITHOUT ROWID;

  CREATE TABLE tool_calls (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    tool_call_id TEXT NOT NULL,
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
  ) WITHOUT ROWID;
  `,
  // Who created the session (a network principal); NULL for the local user and for older rows.
  `ALTER TABLE sessions ADD COLUMN owner TEXT;`,
  `
  -- The reply being streamed, persisted as it streams; folded into the history after a crash.
  CREATE TABLE stream_drafts (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    text TEXT NOT NULL,
    reasoning TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) WITHOUT ROWID;
  -- Which process has the session open: one writer per session.
  CREATE TABLE session_leases (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    holder TEXT NOT NULL,
    pid INTEGER NOT NULL,
    pid_namespace TEXT NOT NULL,
    heartbeat_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  `
  -- The streaming reply as appended pieces (one row a flush), assembled on recovery: rewriting
  -- one growing row each flush made persisting a reply quadratic in its length. A rowid table:
  -- its rows are large. A draft left by an older release becomes its first piece.
  CREATE TABLE stream_draft_chunks (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    reasoning TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  INSERT INTO stream_draft_chunks (session_id, seq, text, reasoning, updated_at)
    SELECT session_id, 0, text, reasoning, updated_at FROM stream_drafts;
  DROP TABLE stream_drafts;
  `,
  // Lease epochs: taking a session's lease bumps it; a write whose writer's epoch is older is refused.
  `ALTER TABLE sessions ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0;`,
];

export const SESSION_SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the file up to the current schema (or `target`, for tests of an upgrade); each step commits with its version bump. */
export function migrateSessionSchema(db: SqliteDatabase, path: string, target = MIGRATIONS.length): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new StorageError(
      'schema_too_new',
      `${path} has session schema version ${current}; this plaited-agent knows up to ${MIGRATIONS.length}. Upgrade plaited-agent or use another state file.`,
      { path },
    );
  }
  for (let version = current; version < Math.min(target, MIGRATIONS.length); version++) {
    const step = db.transaction(() => {
      // Re-check inside the write lock: another process may have migrated meanwhile.
      const now = db.pragma('user_version', { simple: true }) as number;
      if (now > version) return;
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    });
    step.immediate();
  }
}
