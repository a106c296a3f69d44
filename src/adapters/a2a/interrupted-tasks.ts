import { TaskState, taskStateToJSON } from '@a2a-js/sdk';
import type { A2aTaskRecord, A2aTaskRecords } from '../../storage/a2a-task-records.js';
import type { SessionStorageLeases } from '../../storage/session-storage.js';
import { agentMessage, textPart } from './a2a-messages.js';
import type { StoredTaskStore } from './stored-task-store.js';

const LIVE_STATES = [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED].map((state) =>
  taskStateToJSON(state),
);
export const INTERRUPTED_TEXT = 'The agent server restarted while this task ran; send the message again to continue the conversation.';

export interface InterruptedTasksOptions {
  records: A2aTaskRecords;
  taskStore: StoredTaskStore;
  /**
   * The leases of the A2A sessions. A task's turn holds its session's lease from before the
   * task is stored until after its last state is: a task still live in the store whose session
   * no other live process holds has lost its turn. Absent: no other process is trusted to run
   * any task (every live task not running here is dead).
   */
  leases: () => SessionStorageLeases | undefined;
  /** Whether the task's turn runs in this process. */
  runsHere(taskId: string): boolean;
  log?: (message: string) => void;
}

/**
 * Ends (`failed`, saying why) the tasks whose turn died with the process that ran it, so a peer
 * polling `tasks/get` is not left waiting: at start, when this process takes a conversation's
 * session over, and (on a store replicas share) every few seconds, for a replica that died
 * while the others live on. A task another live replica runs is never touched.
 */
export class InterruptedTasks {
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<number> | undefined;

  constructor(private readonly options: InterruptedTasksOptions) {}

  /** Fails the dead tasks (of one conversation when `only` is given); resolves to how many. */
  async endDead(only?: { owner: string; contextId: string }): Promise<number> {
    const { records, runsHere } = this.options;
    let ended = 0;
    for (const record of await records.tasksInStates(LIVE_STATES)) {
      if (only && (record.owner !== only.owner || record.contextId !== only.contextId)) continue;
      if (runsHere(record.taskId) || (await this.runsElsewhere(record))) continue;
      if (await this.#fail(record)) ended++;
    }
    return ended;
  }

  /** Whether another live process holds the session of the task's conversation (so it may run the task). */
  async runsElsewhere(task: { owner: string; contextId: string }): Promise<boolean> {
    const { records } = this.options;
    const leases = this.options.leases();
    if (!leases) return false;
    const binding = await records.contextSession(task.contextId, task.owner);
    return binding !== undefined && (await leases.heldByAnother(binding.sessionId));
  }

  /** Sweeps every `intervalMs` until {@link stop}; a sweep still running is not started twice. */
  start(intervalMs: number): void {
    this.#timer ??= setInterval(() => {
      this.#sweeping ??= this.endDead()
        .then((ended) => {
          if (ended > 0) this.options.log?.(`A2A: ${ended} task(s) whose replica stopped marked failed`);
          return ended;
        })
        .catch((error: unknown) => {
          this.options.log?.(`A2A: looking for tasks of stopped replicas failed: ${(error as Error).message}`);
          return 0;
        })
        .finally(() => {
          this.#sweeping = undefined;
        });
    }, intervalMs).unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  async #fail(record: A2aTaskRecord): Promise<boolean> {
    const task = await this.options.taskStore.loadAs(record.taskId, record.owner);
    if (!task || !LIVE_STATES.includes(taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED))) return false;
    task.status = {
      state: TaskState.TASK_STATE_FAILED,
      timestamp: new Date().toISOString(),
      message: agentMessage({ taskId: task.id, contextId: task.contextId }, [textPart(INTERRUPTED_TEXT)]),
    };
    // `false` when the task's turn ended (elsewhere) since it was read: its end stands.
    return this.options.taskStore.saveAs(task, record.owner);
  }
}
