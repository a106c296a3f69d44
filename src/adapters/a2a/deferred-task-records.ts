import type { A2aTaskQuery, A2aTaskRecord, A2aTaskRecords } from '../../storage/a2a-task-records.js';

/**
 * The A2A task records, opened on first use and retried after a failure (a database server
 * that is down when the replica starts), as the agent's own session store is: the face listens
 * and answers `/readyz` with 503 until the store answers, then recovers on its own. `opened`
 * runs once, when the records first open (restart recovery). Not `shared` until then.
 */
export class DeferredTaskRecords implements A2aTaskRecords {
  #records: A2aTaskRecords | undefined;
  #opening: Promise<A2aTaskRecords> | undefined;
  #closed = false;

  constructor(
    private readonly open: () => Promise<A2aTaskRecords>,
    private readonly opened: (records: A2aTaskRecords) => Promise<void>,
  ) {}

  get location(): string {
    return this.#records?.location ?? 'the agent store (not open yet)';
  }

  get shared(): boolean {
    return this.#records?.shared ?? false;
  }

  /** The opened records; a failed open is not kept, the next call tries again. */
  ready(): Promise<A2aTaskRecords> {
    if (this.#records) return Promise.resolve(this.#records);
    this.#opening ??= (async () => {
      const records = await this.open();
      if (this.#closed) {
        await records.close();
        throw new Error('the A2A task store was closed while it opened');
      }
      this.#records = records;
      await this.opened(records);
      return records;
    })().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  async saveTask(record: Omit<A2aTaskRecord, 'updatedAt'>): Promise<boolean> {
    return (await this.ready()).saveTask(record);
  }

  async loadTask(taskId: string, owner: string): Promise<A2aTaskRecord | undefined> {
    return (await this.ready()).loadTask(taskId, owner);
  }

  async listTasks(query: A2aTaskQuery): Promise<{ tasks: A2aTaskRecord[]; total: number }> {
    return (await this.ready()).listTasks(query);
  }

  async tasksInStates(states: readonly string[]): Promise<A2aTaskRecord[]> {
    return (await this.ready()).tasksInStates(states);
  }

  async contextSession(contextId: string, owner: string) {
    return (await this.ready()).contextSession(contextId, owner);
  }

  async bindContext(contextId: string, owner: string, sessionId: string): Promise<void> {
    await (await this.ready()).bindContext(contextId, owner, sessionId);
  }

  /** A no-op (nothing to watch) until the records are open and shared. */
  watchTask(taskId: string, listener: () => void): () => void {
    return this.#records?.watchTask?.(taskId, listener) ?? (() => undefined);
  }

  async requestCancel(taskId: string): Promise<void> {
    await (await this.ready()).requestCancel?.(taskId);
  }

  watchCancel(taskId: string, listener: () => void): () => void {
    return this.#records?.watchCancel?.(taskId, listener) ?? (() => undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#opening?.catch(() => undefined);
    await this.#records?.close();
  }
}
