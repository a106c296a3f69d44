/**
 * One A2A task as stored. The task body is opaque JSON (the adapter's protocol shape);
 * the columns beside it are what lookups and listings filter on.
 */
export interface A2aTaskRecord {
  taskId: string;
  contextId: string;
  /** The principal that created the task; every read is scoped to it. */
  owner: string;
  /** The adapter's state name (e.g. `TASK_STATE_WORKING`), for listing and restart recovery. */
  state: string;
  /** The task, serialized by the adapter. */
  json: string;
  updatedAt: string;
}

/**
 * The A2A terminal states as stored (the SDK's `taskStateToJSON` names). A task stored in one of
 * them is finished for good (A2A: a terminal task cannot be restarted, a message to it is refused):
 * every driver's `saveTask` leaves such a row as it is, in the same statement as the write.
 */
export const FINAL_TASK_STATES: readonly string[] = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];

export interface A2aTaskQuery {
  owner: string;
  contextId?: string;
  state?: string;
  /** Tasks updated after this ISO timestamp. */
  updatedAfter?: string;
  limit: number;
  offset: number;
}

/** A peer's conversation (A2A `contextId`) bound to the agent session that holds its history. */
export interface A2aContextRecord {
  contextId: string;
  owner: string;
  sessionId: string;
  createdAt: string;
}

/**
 * Where A2A tasks and context→session bindings live: beside the sessions, in the same store
 * (the project's SQLite file, or the PostgreSQL database every replica shares). The A2A
 * adapter's task store and executor use only this; the record contract suite
 * (test/storage/a2a-task-records-contract.ts) holds each driver to it.
 */
export interface A2aTaskRecords {
  /** Where it lives, for messages: a file path, or a URL without its password. */
  readonly location: string;
  /** Whether other processes (replicas) write the same records. */
  readonly shared: boolean;
  /**
   * Inserts or overwrites the task (`updatedAt` is the store's clock), unless the stored task is
   * in a {@link FINAL_TASK_STATES final state}: then nothing changes, whoever saves (a late
   * follow-up the SDK appends without our lock, a failure published after the end, another
   * replica), and it resolves to `false`. Atomic: decided by the write itself, not a read before.
   */
  saveTask(record: Omit<A2aTaskRecord, 'updatedAt'>): Promise<boolean>;
  loadTask(taskId: string, owner: string): Promise<A2aTaskRecord | undefined>;
  /** Newest first; `total` counts every match, not only this page. */
  listTasks(query: A2aTaskQuery): Promise<{ tasks: A2aTaskRecord[]; total: number }>;
  /** Tasks of any owner whose state is one of `states` (restart recovery). */
  tasksInStates(states: readonly string[]): Promise<A2aTaskRecord[]>;
  contextSession(contextId: string, owner: string): Promise<A2aContextRecord | undefined>;
  bindContext(contextId: string, owner: string, sessionId: string): Promise<void>;
  /**
   * Shared stores only: calls `listener` after every save of `taskId` by any replica (and once
   * after a lost connection to the change feed is back, as anything may have changed meanwhile).
   * Returns the function that stops it.
   */
  watchTask?(taskId: string, listener: () => void): () => void;
  /** Shared stores only: asks whichever replica runs the task's turn to cancel it (see {@link watchCancel}). */
  requestCancel?(taskId: string): Promise<void>;
  /** Shared stores only: calls `listener` when any replica asks to cancel `taskId`. Returns the function that stops it. */
  watchCancel?(taskId: string, listener: () => void): () => void;
  close(): Promise<void>;
}
