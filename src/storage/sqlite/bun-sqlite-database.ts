import { Database, type Statement, type SQLQueryBindings } from 'bun:sqlite';
import type { BindParameters, SqliteDatabase, SqliteRunResult, SqliteStatement, SqliteTransaction, StatementArgs } from './sqlite-database.js';

/**
 * Compiled by tsconfig.bun.json (with bun-types), not by the Node build's tsconfig.json.
 * `bun:sqlite` behind the project's SQLite interface. Only loaded under Bun. `strict` lets
 * named parameters bind from objects without their `@` prefix, as better-sqlite3 does;
 * a missing row is `undefined` (Bun says `null`).
 */
export function openBunSqlite(path: string): SqliteDatabase {
  return new BunSqliteDatabase(new Database(path, { create: true, strict: true }));
}

class BunSqliteDatabase implements SqliteDatabase {
  #db: Database;
  #open = true;

  constructor(db: Database) {
    this.#db = db;
  }

  get open(): boolean {
    return this.#open;
  }

  prepare<Params extends BindParameters = unknown[], Row = unknown>(sql: string): SqliteStatement<Params, Row> {
    return new BunSqliteStatement<Params, Row>(this.#db.prepare(sql));
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  pragma(source: string, options?: { simple?: boolean }): unknown {
    const rows = this.#db.prepare(`PRAGMA ${source}`).all() as Array<Record<string, unknown>>;
    if (!options?.simple) return rows;
    const first = rows[0];
    return first === undefined ? undefined : Object.values(first)[0];
  }

  transaction<F extends (...args: never[]) => unknown>(fn: F): SqliteTransaction<F> {
    // Bun's transaction functions carry deferred/immediate/exclusive, as better-sqlite3's do.
    return this.#db.transaction(fn as unknown as (...args: unknown[]) => unknown) as unknown as SqliteTransaction<F>;
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#db.close();
  }
}

class BunSqliteStatement<Params extends BindParameters, Row> implements SqliteStatement<Params, Row> {
  #statement: Statement;

  constructor(statement: Statement) {
    this.#statement = statement;
  }

  run(...params: StatementArgs<Params>): SqliteRunResult {
    return this.#statement.run(...bindings(params));
  }

  get(...params: StatementArgs<Params>): Row | undefined {
    return (this.#statement.get(...bindings(params)) ?? undefined) as Row | undefined;
  }

  all(...params: StatementArgs<Params>): Row[] {
    return this.#statement.all(...bindings(params)) as Row[];
  }

  iterate(...params: StatementArgs<Params>): IterableIterator<Row> {
    return this.#statement.iterate(...bindings(params)) as IterableIterator<Row>;
  }
}

function bindings(params: readonly unknown[]): SQLQueryBindings[] {
  return params as SQLQueryBindings[];
}
