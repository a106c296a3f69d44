/**
 * The part of a SQLite connection the project uses, shaped after better-sqlite3 (the Node
 * driver), so that driver's connection is used as it is and Bun's `bun:sqlite` needs only a
 * thin adapter. Named parameters are written `@name` in SQL and bound from objects without
 * the prefix; blobs are read as `Uint8Array` (a `Buffer` on Node).
 */

/** Positional parameters as a tuple, or one object of named ones. */
export type BindParameters = unknown[] | object;
export type StatementArgs<Params extends BindParameters> = Params extends unknown[] ? Params : [Params];

export interface SqliteRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface SqliteStatement<Params extends BindParameters = unknown[], Row = unknown> {
  run(...params: StatementArgs<Params>): SqliteRunResult;
  /** The first row, or `undefined` when there is none. */
  get(...params: StatementArgs<Params>): Row | undefined;
  all(...params: StatementArgs<Params>): Row[];
  iterate(...params: StatementArgs<Params>): IterableIterator<Row>;
}

export interface SqliteDatabase {
  prepare<Params extends BindParameters = unknown[], Row = unknown>(sql: string): SqliteStatement<Params, Row>;
  exec(sql: string): unknown;
  /** `PRAGMA <source>`; with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Wraps `fn` so each call runs in one transaction (nested calls use savepoints). */
  transaction<F extends (...args: never[]) => unknown>(fn: F): SqliteTransaction<F>;
  readonly open: boolean;
  close(): unknown;
}

/** A transaction function; `immediate` takes the write lock at BEGIN (no upgrade deadlock). */
export type SqliteTransaction<F> = F & { deferred: F; immediate: F; exclusive: F };

/** Which driver serves this runtime. */
export type SqliteDriver = 'better-sqlite3' | 'bun:sqlite';
