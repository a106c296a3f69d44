import type { SessionStore } from '../session-store.js';
import type { NewSession, StoredSession } from '../session-records.js';
import { copySession } from '../copy-session.js';
import type { SessionStorage, SessionStorageLeases, SessionStorageSettings } from '../session-storage.js';

/**
 * The SQLite driver behind the async seam: each method runs the synchronous `SessionStore`
 * method at once (so calls keep their order) and hands its result or error back as a Promise.
 * The file, its format and its behaviour are the store's own, unchanged.
 */
export class SqliteSessionStorage implements SessionStorage {
  readonly leases: SessionStorageLeases;
  readonly settings: SessionStorageSettings;

  constructor(readonly store: SessionStore) {
    const { leases, settings } = store;
    this.leases = {
      acquire: async (sessionId) => leases.acquire(sessionId),
      holds: async (sessionId) => leases.holds(sessionId),
      heldByAnother: async (sessionId) => leases.heldByAnother(sessionId),
      forget: (sessionId) => leases.forget(sessionId),
      release: async (sessionId) => leases.release(sessionId),
    };
    this.settings = {
      get: async (sessionId) => settings.get(sessionId),
      set: async (sessionId, key, value) => settings.set(sessionId, key, value),
    };
  }

  get location(): string {
    return this.store.path;
  }

  get isOpen(): boolean {
    return this.store.isOpen;
  }

  async createSession(...args: Parameters<SessionStore['createSession']>) {
    return this.store.createSession(...args);
  }

  /** One transaction when both ends are SQLite files; across drivers, the copy through the seam. */
  async forkSession(sourceId: string, target: NewSession, into: SessionStorage, settings: Record<string, unknown>): Promise<StoredSession> {
    if (into instanceof SqliteSessionStorage) return this.store.forkSession(sourceId, target, into.store, settings);
    return copySession(this, sourceId, target, into, settings);
  }

  async getSession(sessionId: string) {
    return this.store.getSession(sessionId);
  }

  async listSessions(...args: Parameters<SessionStore['listSessions']>) {
    return this.store.listSessions(...args);
  }

  async updateSession(...args: Parameters<SessionStore['updateSession']>) {
    return this.store.updateSession(...args);
  }

  async deleteSession(sessionId: string) {
    return this.store.deleteSession(sessionId);
  }

  async appendMessages(...args: Parameters<SessionStore['appendMessages']>) {
    this.store.appendMessages(...args);
  }

  async replaceMessages(...args: Parameters<SessionStore['replaceMessages']>) {
    this.store.replaceMessages(...args);
  }

  async loadMessages(sessionId: string) {
    return this.store.loadMessages(sessionId);
  }

  async appendEvents(...args: Parameters<SessionStore['appendEvents']>) {
    this.store.appendEvents(...args);
  }

  async recoverDraft(...args: Parameters<SessionStore['recoverDraft']>) {
    return this.store.recoverDraft(...args);
  }

  async loadEvents(sessionId: string) {
    return this.store.loadEvents(sessionId);
  }

  async recordToolCall(...args: Parameters<SessionStore['recordToolCall']>) {
    this.store.recordToolCall(...args);
  }

  async finishToolCall(...args: Parameters<SessionStore['finishToolCall']>) {
    return this.store.finishToolCall(...args);
  }

  async loadToolCalls(sessionId: string) {
    return this.store.loadToolCalls(sessionId);
  }

  async ping(): Promise<void> {
    this.store.journalMode();
  }

  async close(): Promise<void> {
    this.store.close();
  }
}
