import type { Message } from '@a2a-js/sdk';
import { ResultManager, type AgentExecutionEvent, type ExecutionEventBus, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';

/**
 * Stores every event of one task as it is published, whoever listens. The SDK persists
 * only through the request that is reading the bus, so without this a task whose peer
 * stopped reading (a dropped stream, a question that timed out after `input-required`)
 * would stay `working` in the store forever. Writes go through the SDK's own
 * `ResultManager`, so they merge with the request's writes under the same per-task lock.
 */
export class TaskRecorder {
  private readonly manager: ResultManager;
  private chain: Promise<void> = Promise.resolve();
  private readonly listener = (event: AgentExecutionEvent) => {
    if (taskIdOf(event) !== this.taskId) return;
    this.chain = this.chain.then(() => this.manager.processEvent(event)).catch((error: unknown) => this.onError?.(error));
  };

  constructor(
    private readonly bus: ExecutionEventBus,
    private readonly taskId: string,
    options: { store: TaskStore; context: ServerCallContext; userMessage: Message; onError?: (error: unknown) => void },
  ) {
    this.manager = new ResultManager(options.store, options.context);
    this.manager.setContext(options.userMessage);
    this.onError = options.onError;
    bus.on('event', this.listener);
  }

  private readonly onError: ((error: unknown) => void) | undefined;

  /** Stops listening once everything heard so far is stored. */
  async close(): Promise<void> {
    this.bus.off('event', this.listener);
    await this.chain;
  }
}

function taskIdOf(event: AgentExecutionEvent): string | undefined {
  switch (event.kind) {
    case 'task':
      return event.data.id;
    case 'statusUpdate':
    case 'artifactUpdate':
      return event.data.taskId;
    default:
      return undefined;
  }
}
