import { Task, TaskState, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { A2aTaskStore } from '../../storage/a2a-task-store.js';
import { agentMessage, textPart } from './a2a-messages.js';
import { ownerOf } from './a2a-principal.js';

const TERMINAL = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

/**
 * The SDK's `TaskStore` over the project's SQLite file: tasks are kept in their protocol
 * JSON form (`Task.toJSON`), scoped to the caller's principal, so `tasks/get` of a task
 * finished before a restart still answers.
 */
export class SqliteTaskStore implements TaskStore {
  constructor(private readonly records: A2aTaskStore) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    this.records.saveTask({
      taskId: task.id,
      contextId: task.contextId,
      owner: ownerOf(context),
      state: taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
      json: JSON.stringify(Task.toJSON(task)),
    });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const record = this.records.loadTask(taskId, ownerOf(context));
    return record && Task.fromJSON(JSON.parse(record.json));
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? 50;
    const offset = decodePageToken(params.pageToken);
    const { tasks, total } = this.records.listTasks({
      owner: ownerOf(context),
      contextId: params.contextId || undefined,
      state: params.status ? taskStateToJSON(params.status) : undefined,
      updatedAfter: params.statusTimestampAfter || undefined,
      limit: pageSize,
      offset,
    });
    const next = offset + tasks.length;
    return {
      tasks: tasks.map((record) => {
        const task = Task.fromJSON(JSON.parse(record.json));
        if (params.includeArtifacts !== true) task.artifacts = [];
        return task;
      }),
      nextPageToken: next < total ? Buffer.from(String(next)).toString('base64url') : '',
      pageSize,
      totalSize: total,
    };
  }

  /**
   * Tasks a previous process was running cannot go on (their turn died with it): they end
   * `failed` with a message that says so, so a peer polling `tasks/get` is not left waiting.
   */
  failInterrupted(now = new Date()): number {
    const live = [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED];
    const records = this.records.tasksInStates(live.map((state) => taskStateToJSON(state)));
    for (const record of records) {
      const task = Task.fromJSON(JSON.parse(record.json));
      if (task.status && TERMINAL.has(task.status.state)) continue;
      task.status = {
        state: TaskState.TASK_STATE_FAILED,
        timestamp: now.toISOString(),
        message: agentMessage({ taskId: task.id, contextId: task.contextId }, [textPart('The agent server restarted while this task ran; send the message again to continue the conversation.')]),
      };
      this.records.saveTask({ taskId: task.id, contextId: task.contextId, owner: record.owner, state: taskStateToJSON(task.status.state), json: JSON.stringify(Task.toJSON(task)) });
    }
    return records.length;
  }
}

/** Page tokens are opaque to peers: base64url of an offset, checked on the way back in. */
function decodePageToken(token: string | undefined): number {
  if (!token) return 0;
  const decoded = Buffer.from(token, 'base64url').toString('utf8');
  if (!/^\d{1,9}$/.test(decoded)) return 0;
  return Number(decoded);
}
