import pg from 'pg';
import type { SessionStorage, SessionStores } from '../session-storage.js';
import { StorageError } from '../storage-error.js';
import { redactStoreUrl } from '../redact-store-url.js';
import { describePostgresOpenError } from './describe-postgres-open-error.js';
import { migratePostgresSchema } from './postgres-schema.js';
import { PostgresSessionStorage, type PostgresStorageOptions } from './postgres-session-storage.js';
import { A2A_TASK_CHANNEL, PostgresA2aTaskRecords } from './postgres-a2a-tasks.js';
import { PostgresListener } from './postgres-listener.js';
import { SESSION_EVENTS_CHANNEL } from './postgres-session-events.js';
import type { A2aTaskRecords } from '../a2a-task-records.js';

/** One database for every project: `forProject` answers the same store whatever the cwd. */
export class PostgresSessionStores implements SessionStores {
  #a2aTasks: PostgresA2aTaskRecords | undefined;

  constructor(
    private readonly pool: pg.Pool,
    readonly store: PostgresSessionStorage,
    private readonly listener: PostgresListener,
  ) {}

  /** A2A tasks in the same database, on the same pool and the same LISTEN connection. */
  a2aTasks(): A2aTaskRecords {
    this.#a2aTasks ??= new PostgresA2aTaskRecords(this.pool, this.store.location, this.listener);
    return this.#a2aTasks;
  }

  forProject(): SessionStorage {
    return this.store;
  }

  all(): SessionStorage[] {
    return [this.store];
  }

  async closeAll(): Promise<void> {
    await this.#a2aTasks?.close();
    await this.store.close();
    await this.listener.close();
    await this.pool.end();
  }
}

/**
 * Connects to the PostgreSQL server at `url` and migrates its schema (under an advisory lock:
 * replicas may start at once). Fails with `open_failed` naming the URL without its password.
 */
export async function openPostgresStores(url: string, options: PostgresStorageOptions = {}): Promise<PostgresSessionStores> {
  const location = redactStoreUrl(url);
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 10_000 });
  // An idle connection the server dropped must not crash the process: the next query reconnects.
  pool.on('error', () => undefined);
  try {
    await migratePostgresSchema(pool, location);
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (StorageError.isInstance(error)) throw error;
    const problem = describePostgresOpenError(error, url);
    throw new StorageError('open_failed', `cannot open session store ${location}: ${problem.reason.replaceAll(url, location)}; ${problem.fix}`, {
      path: location,
      cause: error,
      permanent: problem.permanent,
    });
  }
  // One LISTEN connection per replica, for both change feeds.
  const listener = new PostgresListener(url, [SESSION_EVENTS_CHANNEL, A2A_TASK_CHANNEL]);
  return new PostgresSessionStores(pool, new PostgresSessionStorage(pool, location, options, listener), listener);
}
