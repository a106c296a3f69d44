import { TaskState, type Artifact, type Message, type Task } from '@a2a-js/sdk';
import { AgentEvent, type ExecutionEventBus } from '@a2a-js/sdk/server';
import { agentMessage, dataPart, textPart } from './a2a-messages.js';

const TERMINAL = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);
/** Streamed text is sent in chunks at most this often: one status update (and one stored row) per chunk, not per token. */
const TEXT_FLUSH_MS = 50;

export interface TaskIds {
  taskId: string;
  contextId: string;
}

/**
 * Everything one task tells its peers, in order, on the SDK's event bus. Once a terminal
 * state is published nothing more is (the ACP cancel guarantee: no update after `canceled`).
 */
export class TaskPublisher {
  private text = '';
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly bus: ExecutionEventBus,
    readonly ids: TaskIds,
  ) {}

  get closed(): boolean {
    return this.ended;
  }

  /** The task itself: the first event of every `execute` call, as the SDK requires. */
  task(state: TaskState, history: Message[] = [], message?: Message): void {
    if (this.ended) return;
    const task: Task = {
      id: this.ids.taskId,
      contextId: this.ids.contextId,
      status: { state, message, timestamp: new Date().toISOString() },
      artifacts: [],
      history,
      metadata: undefined,
    };
    this.bus.publish(AgentEvent.task(task));
  }

  /** A reply to this request alone, outside the task's history (a message the task did not take). */
  message(message: Message): void {
    this.bus.publish(AgentEvent.message(message));
  }

  /** Streamed answer text, coalesced. */
  appendText(text: string): void {
    if (this.ended) return;
    this.text += text;
    this.timer ??= setTimeout(() => this.flushText(), TEXT_FLUSH_MS);
  }

  flushText(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.text.length === 0) return;
    const text = this.text;
    this.text = '';
    this.status(TaskState.TASK_STATE_WORKING, agentMessage(this.ids, [textPart(text)], { kind: 'text' }));
  }

  /** A tool step, plan or notice as a working-status update with one data part. */
  step(kind: string, value: Record<string, unknown>): void {
    this.flushText();
    this.status(TaskState.TASK_STATE_WORKING, agentMessage(this.ids, [dataPart({ type: kind, ...value })], { kind }));
  }

  status(state: TaskState, message?: Message, metadata?: Record<string, unknown>): void {
    if (this.ended) return;
    if (state !== TaskState.TASK_STATE_WORKING || message === undefined) this.flushText();
    if (TERMINAL.has(state)) this.ended = true;
    this.bus.publish(
      AgentEvent.statusUpdate({
        taskId: this.ids.taskId,
        contextId: this.ids.contextId,
        status: { state, message, timestamp: new Date().toISOString() },
        metadata,
      }),
    );
  }

  artifact(artifact: Artifact): void {
    if (this.ended) return;
    this.flushText();
    this.bus.publish(AgentEvent.artifactUpdate({ taskId: this.ids.taskId, contextId: this.ids.contextId, artifact, append: false, lastChunk: true, metadata: undefined }));
  }

  /** The last event: pending text first, then the terminal state. */
  finish(state: TaskState, message: Message | undefined, metadata?: Record<string, unknown>): void {
    this.flushText();
    this.status(state, message, metadata);
  }
}
