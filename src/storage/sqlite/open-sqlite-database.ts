import { createRequire } from 'node:module';
import type { SqliteDatabase, SqliteDriver } from './sqlite-database.js';

const require = createRequire(import.meta.url);

/** `bun:sqlite` under Bun, better-sqlite3 on Node (the one that has native Node bindings). */
export const sqliteDriver: SqliteDriver = typeof process.versions.bun === 'string' ? 'bun:sqlite' : 'better-sqlite3';

type Open = (path: string) => SqliteDatabase;
let open: Open | undefined;

/**
 * Opens (creating it when missing) the SQLite file at `path`, or `:memory:`. The driver is
 * loaded on first use, synchronously, so neither runtime pays for SQLite before it needs it.
 */
export function openSqliteDatabase(path: string): SqliteDatabase {
  open ??= loadDriver();
  return open(path);
}

function loadDriver(): Open {
  if (sqliteDriver === 'bun:sqlite') {
    // Typed here, not imported: that module is built with bun-types, apart from the Node build.
    const { openBunSqlite } = require('./bun-sqlite-database.js') as { openBunSqlite: Open };
    return openBunSqlite;
  }
  const Database = require('better-sqlite3') as typeof import('better-sqlite3');
  // better-sqlite3's connection is the interface's reference shape.
  return (path) => new Database(path) as unknown as SqliteDatabase;
}
