import type { ModelMessage } from 'ai';
import type { AgentOutput } from '../contracts/agent-output.js';

interface Entry {
  message: ModelMessage;
  /** The `user-message` event, emitted (and so recorded) by the turn at the point it takes the message. */
  event: AgentOutput;
  settle: (absorbed: boolean) => void;
}

/**
 * Messages sent while a turn runs, waiting to join it before its next model step.
 * Each `push` resolves `true` once the turn took the message, or `false` when the turn
 * ended first or the sender gave up (the caller then runs it as a turn of its own, or
 * drops it). Listeners hear arrivals, so a turn waiting on a permission answer can give
 * up the question at once.
 */
export class SteeringQueue {
  #entries: Entry[] = [];
  #listeners = new Set<() => void>();

  get pending(): boolean {
    return this.#entries.length > 0;
  }

  push(message: ModelMessage, event: AgentOutput, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    const absorbed = new Promise<boolean>((settle) => {
      const entry: Entry = { message, event, settle };
      this.#entries.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          const at = this.#entries.indexOf(entry);
          if (at < 0) return;
          this.#entries.splice(at, 1);
          settle(false);
        },
        { once: true },
      );
    });
    for (const listener of [...this.#listeners]) listener();
    return absorbed;
  }

  /** The waiting messages, in arrival order; their senders learn they were absorbed. */
  take(): Array<{ message: ModelMessage; event: AgentOutput }> {
    const entries = this.#entries.splice(0);
    for (const entry of entries) entry.settle(true);
    return entries.map(({ message, event }) => ({ message, event }));
  }

  /** The turn is over: messages not taken go back to their senders. */
  release(): void {
    for (const entry of this.#entries.splice(0)) entry.settle(false);
  }

  /** Calls `listener` on each arrival until the returned function is called. */
  onArrive(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
