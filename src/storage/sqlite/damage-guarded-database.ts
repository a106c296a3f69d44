import { isDamagedStoreError, storeDamagedError } from '../store-open-error.js';
import type { BindParameters, SqliteDatabase, SqliteStatement } from './sqlite-database.js';

/**
 * A connection whose statements report a damaged file (a page SQLite finds malformed, long after
 * the file opened) as the store's own error, naming the file and the fix, instead of SQLite's bare
 * "database disk image is malformed", which a client was told to retry. Other errors pass as they are.
 */
export function damageGuardedDatabase(db: SqliteDatabase, what: string, path: string): SqliteDatabase {
  const guard = <T>(run: () => T): T => {
    try {
      return run();
    } catch (error) {
      throw isDamagedStoreError(error) ? storeDamagedError(what, path, error) : error;
    }
  };
  const prepare = <Params extends BindParameters = unknown[], Row = unknown>(sql: string): SqliteStatement<Params, Row> => {
    const statement = guard(() => db.prepare<Params, Row>(sql));
    return {
      run: (...params) => guard(() => statement.run(...params)),
      get: (...params) => guard(() => statement.get(...params)),
      all: (...params) => guard(() => statement.all(...params)),
      iterate: (...params) => guard(() => statement.iterate(...params)),
    };
  };
  return {
    prepare,
    exec: (sql) => guard(() => db.exec(sql)),
    pragma: (source, options) => guard(() => db.pragma(source, options)),
    transaction: (fn) => db.transaction(fn),
    get open() {
      return db.open;
    },
    close: () => db.close(),
  };
}
