import type { SessionStores } from './session-storage.js';
import type { SessionStoreOptions } from './session-store.js';
import { StoreRegistry } from './store-registry.js';
import { SqliteSessionStores } from './sqlite/sqlite-session-stores.js';
import { StorageError } from './storage-error.js';
import { redactStoreUrl } from './redact-store-url.js';

export interface OpenSessionStoresOptions extends Pick<SessionStoreOptions, 'leases' | 'onCorruptRow' | 'now'> {
  /** `postgres://…`: one PostgreSQL database shared by every replica. Unset: SQLite files. */
  url?: string;
  /** SQLite: one state file for every project (config `agent.stateDb`); default `<cwd>/.plaited/state/state.db`. */
  path?: string;
  baseDir?: string;
}

/** The storage driver the options name: PostgreSQL for a `postgres://` URL (loaded only then), else SQLite. */
export async function openSessionStores(options: OpenSessionStoresOptions): Promise<SessionStores> {
  const { url, path, baseDir, ...storeOptions } = options;
  if (url === undefined || url === '') {
    return new SqliteSessionStores(new StoreRegistry({ ...storeOptions, ...(path === undefined ? {} : { path }), ...(baseDir === undefined ? {} : { baseDir }) }));
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new StorageError(
      'open_failed',
      `unsupported store URL ${redactStoreUrl(url)}: use postgres://user:password@host:5432/database, or leave the store unset for the SQLite default`,
      { path: redactStoreUrl(url) },
    );
  }
  const { openPostgresStores } = await import('./postgres/postgres-session-stores.js');
  return openPostgresStores(url, storeOptions);
}
