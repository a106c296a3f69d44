import type { LlamaContext, LlamaContextSequence } from 'node-llama-cpp';

/**
 * Lends the sequences of one shared llama.cpp context: one sequence per concurrent generation,
 * returned (and its KV cache freed) when the generation ends. When all are lent, callers wait
 * in order; an aborted waiter leaves the queue.
 */
export class ChatContextPool {
  private readonly waiters: Array<{ grant: () => void; reject: (error: unknown) => void; signal?: AbortSignal; onAbort?: () => void }> = [];
  private active = 0;
  private peak = 0;
  private served = 0;

  constructor(readonly context: LlamaContext) {}

  async acquire(signal?: AbortSignal): Promise<{ sequence: LlamaContextSequence; release: () => Promise<void> }> {
    signal?.throwIfAborted();
    if (this.active < this.capacity) {
      this.active++;
    } else {
      // A releasing holder hands its slot straight to the first waiter (active stays the same),
      // so a newcomer cannot take it in between.
      await new Promise<void>((grant, reject) => {
        const waiter: (typeof this.waiters)[number] = { grant, reject, signal };
        if (signal) {
          waiter.onAbort = () => {
            const index = this.waiters.indexOf(waiter);
            if (index !== -1) this.waiters.splice(index, 1);
            reject(signal.reason);
          };
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
        this.waiters.push(waiter);
      });
    }
    this.served++;
    this.peak = Math.max(this.peak, this.active);
    let sequence: LlamaContextSequence;
    try {
      sequence = this.context.getSequence();
    } catch (error) {
      this.releaseSlot();
      throw error;
    }
    let released = false;
    return {
      sequence,
      release: async () => {
        if (released) return;
        released = true;
        try {
          if (!sequence.disposed) await sequence.dispose();
        } finally {
          this.releaseSlot();
        }
      },
    };
  }

  private releaseSlot(): void {
    const next = this.waiters.shift();
    if (!next) {
      this.active--;
      return;
    }
    if (next.signal && next.onAbort) next.signal.removeEventListener('abort', next.onAbort);
    next.grant();
  }

  get capacity(): number {
    return this.context.totalSequences;
  }

  stats(): { activeSequences: number; peakSequences: number; sequencesServed: number; capacity: number } {
    return { activeSequences: this.active, peakSequences: this.peak, sequencesServed: this.served, capacity: this.capacity };
  }
}
