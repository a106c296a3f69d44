import type { TaskState } from '@a2a-js/sdk';
import { DefaultExecutionEventBusManager, type ExecutionEventBus, type ExecutionEventBusManager, type ServerCallContext } from '@a2a-js/sdk/server';
import { FollowUpTaskBus } from './follow-up-task-bus.js';
import type { A2aTaskRecords } from '../../storage/a2a-task-records.js';
import { ownerOf } from './a2a-principal.js';
import { RelayedTaskBus } from './relayed-task-bus.js';
import type { StoredTaskStore } from './stored-task-store.js';

/**
 * The SDK's event buses per task: those of turns running in this process (the SDK's own
 * manager), and, on a store the replicas share, a {@link RelayedTaskBus} for a task this
 * process does not run, so `tasks/resubscribe` on any replica streams the turn running on
 * another one. Without a change feed (SQLite) it is the SDK's manager alone. A second request
 * on a task that runs here gets a {@link FollowUpTaskBus} over the task's bus.
 */
export class TaskBusManager implements ExecutionEventBusManager {
  readonly #local = new DefaultExecutionEventBusManager();

  constructor(
    private readonly records: A2aTaskRecords,
    private readonly store: StoredTaskStore,
    private readonly log?: (message: string) => void,
  ) {}

  createOrGetByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus {
    const running = this.#local.getByTaskId(taskId, context);
    return running ? new FollowUpTaskBus(running) : this.#local.createOrGetByTaskId(taskId, context);
  }

  /** A follow-up's end is its own: the task's bus lives until the turn's request settles it. */
  settleByTaskId(_taskId: string, bus: ExecutionEventBus, _state: TaskState | undefined, _context: ServerCallContext): boolean {
    if (!(bus instanceof FollowUpTaskBus)) return false;
    bus.finished();
    return true;
  }

  getByTaskId(taskId: string, context?: ServerCallContext): ExecutionEventBus | undefined {
    const local = this.#local.getByTaskId(taskId, context);
    const watch = this.records.watchTask?.bind(this.records);
    if (local || !this.records.shared || !watch || !context) return local;
    const owner = ownerOf(context);
    return new RelayedTaskBus(
      { owner, load: () => this.store.loadAs(taskId, owner), watch: (changed) => watch(taskId, changed) },
      (error) => this.log?.(`A2A task ${taskId}: reading its update from the store failed: ${(error as Error).message}`),
    );
  }

  cleanupByTaskId(taskId: string, context?: ServerCallContext): void {
    this.#local.cleanupByTaskId(taskId, context);
  }
}
