/**
 * Preloaded (`--import`) into a benchmark replica: counts the queries its PostgreSQL store sends,
 * each one a round trip to the database, and writes the count at exit to a file named by its pid in
 * the folder PLAITED_BENCH_PG_COUNT (the CLI's launcher and the agent it starts both load this).
 * The CLI loads `pg` from node_modules (it is not bundled), the same module this wraps.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const folder = process.env.PLAITED_BENCH_PG_COUNT;
if (folder) {
  let queries = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: Parameters<typeof query>) {
    queries++;
    return query.apply(this, args);
  } as typeof query;
  process.on('exit', () => writeFileSync(join(folder, String(process.pid)), String(queries)));
}
