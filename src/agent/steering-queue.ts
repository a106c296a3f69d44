import type { ModelMessage } from 'ai';

interface Entry {
  message: ModelMessage;
  settle: (absorbed: boolean) => void;
}

/**
 * Messages sent while a turn runs, waiting to join it before its next model step.
 * Each `push` resolves `true` once the turn took the message, or `false` when the turn
 * ended first (the caller then runs it as a turn of its own). Listeners hear arrivals,
 * so a turn waiting on a permission answer can give up the question at once.
 */
export class SteeringQueue {
  #entries: Entry[] = [];
  #listeners = new Set<() => void>();

  get pending(): boolean {
    return this.#entries.length > 0;
  }

  push(message: ModelMessage): Promise<boolean> {
    const absorbed = new Promise<boolean>((settle) => this.#entries.push({ message, settle }));
    for (const listener of [...this.#listeners]) listener();
    return absorbed;
  }

  /** The waiting messages, in arrival order; their senders learn they were absorbed. */
  take(): ModelMessage[] {
    const entries = this.#entries.splice(0);
    for (const entry of entries) entry.settle(true);
    return entries.map((entry) => entry.message);
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
