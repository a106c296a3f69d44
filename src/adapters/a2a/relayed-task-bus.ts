import { EventEmitter } from 'node:events';
import { Role, TaskState, type Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent, type ExecutionEventBus } from '@a2a-js/sdk/server';

type EventListener = (event: AgentExecutionEvent) => void;
type FinishedListener = () => void;

const TERMINAL = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

export interface RelaySource {
  /** The principal the task belongs to. */
  owner: string;
  /** The task as stored now, for the caller's principal. */
  load(): Promise<Task | undefined>;
  /** Calls `changed` after every save of the task by any replica; returns the function that stops it. */
  watch(changed: () => void): () => void;
}

/**
 * The event bus of a task whose turn runs on another replica: each save announced on the
 * store's change feed is read back and what changed since the last read goes out as the SDK's
 * events (new agent messages as working-status updates, new or changed artifacts, then the
 * status), so `tasks/resubscribe` streams the same shape it would on the running replica. The
 * first read is the baseline (the subscriber gets the task itself from the store). Stops
 * watching once nobody listens or the task ended.
 */
export class RelayedTaskBus implements ExecutionEventBus {
  readonly #emitter = new EventEmitter();
  readonly #messages = new Set<string>();
  readonly #artifacts = new Map<string, string>();
  #status = '';
  #chain: Promise<void>;
  #unwatch: (() => void) | undefined;

  constructor(
    readonly source: RelaySource,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.#chain = this.#read(true);
    this.#unwatch = source.watch(() => {
      this.#chain = this.#chain.then(() => this.#read(false));
    });
  }

  publish(event: AgentExecutionEvent): void {
    this.#emitter.emit('event', event);
  }

  finished(): void {
    this.#emitter.emit('finished');
  }

  on(eventName: 'event' | 'finished', listener: EventListener | FinishedListener): this {
    this.#emitter.on(eventName, listener);
    return this;
  }

  off(eventName: 'event' | 'finished', listener: EventListener | FinishedListener): this {
    this.#emitter.off(eventName, listener);
    if (this.#emitter.listenerCount('event') === 0) this.#stop();
    return this;
  }

  once(eventName: 'event' | 'finished', listener: EventListener | FinishedListener): this {
    this.#emitter.once(eventName, listener);
    return this;
  }

  removeAllListeners(eventName?: 'event' | 'finished'): this {
    this.#emitter.removeAllListeners(eventName);
    if (this.#emitter.listenerCount('event') === 0) this.#stop();
    return this;
  }

  #stop(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  async #read(baseline: boolean): Promise<void> {
    try {
      const task = await this.source.load();
      if (!task) return;
      const events = this.#changes(task);
      const ended = task.status !== undefined && TERMINAL.has(task.status.state);
      // A task already ended at the first read still tells its end (a cancel waits for it).
      if (!baseline) for (const event of events) this.publish(event);
      else if (ended) this.publish(events.at(-1)!);
      if (ended) {
        this.#stop();
        this.finished();
      }
    } catch (error) {
      this.onError(error);
    }
  }

  /** What the stored task holds that was not seen at the last read, as events in a sensible order. */
  #changes(task: Task): AgentExecutionEvent[] {
    const ids = { taskId: task.id, contextId: task.contextId };
    const events: AgentExecutionEvent[] = [];
    const statusMessage = task.status?.message?.messageId;
    for (const message of task.history ?? []) {
      if (this.#messages.has(message.messageId)) continue;
      this.#messages.add(message.messageId);
      if (message.role !== Role.ROLE_AGENT || message.messageId === statusMessage) continue;
      events.push(AgentEvent.statusUpdate({ ...ids, status: { state: TaskState.TASK_STATE_WORKING, message, timestamp: task.status?.timestamp ?? new Date().toISOString() }, metadata: undefined }));
    }
    for (const artifact of task.artifacts ?? []) {
      const json = JSON.stringify(artifact);
      if (this.#artifacts.get(artifact.artifactId) === json) continue;
      this.#artifacts.set(artifact.artifactId, json);
      events.push(AgentEvent.artifactUpdate({ ...ids, artifact, append: false, lastChunk: true, metadata: undefined }));
    }
    const status = JSON.stringify([task.status?.state, task.status?.timestamp, statusMessage]);
    if (task.status && status !== this.#status) {
      this.#status = status;
      if (statusMessage) this.#messages.add(statusMessage);
      events.push(AgentEvent.statusUpdate({ ...ids, status: task.status, metadata: undefined }));
    }
    return events;
  }
}
