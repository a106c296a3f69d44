import { Task, TaskState, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { A2aTaskRecords } from '../../storage/a2a-task-records.js';
import { ownerOf } from './a2a-principal.js';

/**
 * The SDK's `TaskStore` over the project's task records (the SQLite file, or the PostgreSQL
 * database the replicas share): tasks are kept in their protocol JSON form (`Task.toJSON`),
 * scoped to the caller's principal, so `tasks/get` of a task finished before a restart, or
 * run by another replica, still answers.
 */
export class StoredTaskStore implements TaskStore {
  constructor(private readonly records: A2aTaskRecords) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    await this.saveAs(task, ownerOf(context));
  }

  /**
   * Saves `task` for `owner` (restart recovery, which acts for no caller). `false` when the stored
   * task was already final: the records keep a finished task as it ended, whatever comes later
   * (see `A2aTaskRecords.saveTask`; the SDK saves a follow-up message outside its per-task lock).
   */
  async saveAs(task: Task, owner: string): Promise<boolean> {
    return this.records.saveTask({
      taskId: task.id,
      contextId: task.contextId,
      owner,
      state: taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED),
      json: JSON.stringify(Task.toJSON(task)),
    });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.loadAs(taskId, ownerOf(context));
  }

  async loadAs(taskId: string, owner: string): Promise<Task | undefined> {
    const record = await this.records.loadTask(taskId, owner);
    return record && Task.fromJSON(JSON.parse(record.json));
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? 50;
    const offset = decodePageToken(params.pageToken);
    const { tasks, total } = await this.records.listTasks({
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
}

/** Page tokens are opaque to peers: base64url of an offset, checked on the way back in. */
function decodePageToken(token: string | undefined): number {
  if (!token) return 0;
  const decoded = Buffer.from(token, 'base64url').toString('utf8');
  if (!/^\d{1,9}$/.test(decoded)) return 0;
  return Number(decoded);
}
