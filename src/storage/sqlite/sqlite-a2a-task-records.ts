import { A2aTaskStore } from '../a2a-task-store.js';
import type { A2aTaskRecords } from '../a2a-task-records.js';

/**
 * A2A task records in a SQLite state file (the synchronous `A2aTaskStore`, its tables and file
 * format unchanged) behind the async seam. Not shared: one process serves these tasks, so
 * live updates stay on the SDK's in-process event bus and there is no change feed.
 */
export class SqliteA2aTaskRecords implements A2aTaskRecords {
  readonly shared = false;
  readonly #store: A2aTaskStore;

  constructor(path: string, options: { now?: () => Date; busyTimeoutMs?: number } = {}) {
    this.#store = new A2aTaskStore(path, options);
  }

  get location(): string {
    return this.#store.path;
  }

  async saveTask(record: Parameters<A2aTaskRecords['saveTask']>[0]): Promise<boolean> {
    return this.#store.saveTask(record);
  }

  async loadTask(taskId: string, owner: string) {
    return this.#store.loadTask(taskId, owner);
  }

  async listTasks(query: Parameters<A2aTaskRecords['listTasks']>[0]) {
    return this.#store.listTasks(query);
  }

  async tasksInStates(states: readonly string[]) {
    return this.#store.tasksInStates(states);
  }

  async contextSession(contextId: string, owner: string) {
    return this.#store.contextSession(contextId, owner);
  }

  async bindContext(contextId: string, owner: string, sessionId: string): Promise<void> {
    this.#store.bindContext(contextId, owner, sessionId);
  }

  async close(): Promise<void> {
    this.#store.close();
  }
}
