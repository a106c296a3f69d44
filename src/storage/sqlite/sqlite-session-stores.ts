import type { SessionStore } from '../session-store.js';
import type { SessionStores } from '../session-storage.js';
import type { StoreRegistry } from '../store-registry.js';
import { SqliteSessionStorage } from './sqlite-session-storage.js';

/** A `StoreRegistry` (one SQLite file per project, or one fixed file) behind the async seam. */
export class SqliteSessionStores implements SessionStores {
  readonly #wrapped = new WeakMap<SessionStore, SqliteSessionStorage>();

  constructor(readonly registry: StoreRegistry) {}

  forProject(cwd: string): SqliteSessionStorage {
    return this.#wrap(this.registry.forProject(cwd));
  }

  all(): SqliteSessionStorage[] {
    return this.registry.all().map((store) => this.#wrap(store));
  }

  async closeAll(): Promise<void> {
    this.registry.closeAll();
  }

  #wrap(store: SessionStore): SqliteSessionStorage {
    let wrapped = this.#wrapped.get(store);
    if (!wrapped) this.#wrapped.set(store, (wrapped = new SqliteSessionStorage(store)));
    return wrapped;
  }
}
