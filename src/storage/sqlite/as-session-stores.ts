import type { SessionStores } from '../session-storage.js';
import type { StoreRegistry } from '../store-registry.js';
import { SqliteSessionStores } from './sqlite-session-stores.js';

/** Stores as the core takes them: a `StoreRegistry` (SQLite files, as programs built before the seam pass) is wrapped. */
export function asSessionStores(stores: SessionStores | StoreRegistry): SessionStores {
  return isRegistry(stores) ? new SqliteSessionStores(stores) : stores;
}

function isRegistry(stores: SessionStores | StoreRegistry): stores is StoreRegistry {
  return typeof (stores as Partial<StoreRegistry>).pathFor === 'function';
}
