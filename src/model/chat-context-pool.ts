import type { LlamaContext, LlamaContextSequence } from 'node-llama-cpp';

/** One sequence of the context: lent to one generation at a time, and between generations kept for its session. */
interface Slot {
  sequence?: LlamaContextSequence;
  busy: boolean;
  /** The session whose evaluated tokens this sequence holds (resident), if any. */
  key?: string;
  lastUsed: number;
  /** Clearing an evicted session's state; the next borrower waits for it. */
  clearing?: Promise<void>;
}

export interface LentSequence {
  sequence: LlamaContextSequence;
  /** True when the sequence still holds this session's tokens from its last generation. */
  resident: boolean;
  release: () => Promise<void>;
}

export interface ChatContextPoolStats {
  activeSequences: number;
  peakSequences: number;
  sequencesServed: number;
  capacity: number;
  /** Sessions whose evaluated tokens are kept right now, and how many were evicted so far. */
  residentSessions: number;
  evictions: number;
}

/**
 * Lends the sequences of one shared llama.cpp context, session-affine: a generation for a
 * session gets the sequence that holds the session's tokens from its previous step or turn, so
 * node-llama-cpp (which aligns a sequence's state with the new prompt through
 * `adaptStateToTokens`) evaluates only the tokens after the longest common prefix. At most
 * `residentSequences` sessions keep a sequence between generations (least recently used are
 * evicted and their state cleared); a session without one gets a fresh sequence. Calls without
 * a session borrow a free sequence (whatever prefix it still holds is reused; with
 * `residentSequences` 0 every sequence is cleared after use). When all sequences are lent,
 * callers wait in order; an aborted waiter leaves the queue.
 */
export class ChatContextPool {
  private readonly slots: Slot[];
  private readonly waiters: Array<{ grant: (slot: Slot) => void; reject: (error: unknown) => void; signal?: AbortSignal; onAbort?: () => void }> = [];
  private readonly residentLimit: number;
  private clock = 0;
  private peak = 0;
  private served = 0;
  private evicted = 0;

  constructor(
    readonly context: LlamaContext,
    options: { residentSequences?: number } = {},
  ) {
    this.slots = Array.from({ length: context.totalSequences }, () => ({ busy: false, lastUsed: 0 }));
    this.residentLimit = Math.max(0, Math.min(options.residentSequences ?? this.slots.length, this.slots.length));
  }

  async acquire(signal?: AbortSignal, key?: string): Promise<LentSequence> {
    signal?.throwIfAborted();
    const slot = this.waiters.length === 0 ? this.pick(key) : undefined;
    const lent = slot ?? (await this.wait(signal));
    lent.busy = true;
    this.served++;
    this.peak = Math.max(this.peak, this.active);
    try {
      if (lent.clearing) await lent.clearing;
      lent.sequence ??= this.context.getSequence();
    } catch (error) {
      this.releaseSlot(lent, undefined);
      throw error;
    }
    const resident = key !== undefined && lent.key === key;
    if (!resident && lent.key !== undefined) this.evict(lent);
    let released = false;
    return {
      sequence: lent.sequence,
      resident,
      release: async () => {
        if (released) return;
        released = true;
        this.releaseSlot(lent, key);
      },
    };
  }

  /** The idle sequence for this session, else a free one, else the least recently used resident one. */
  private pick(key: string | undefined): Slot | undefined {
    const idle = this.slots.filter((slot) => !slot.busy);
    if (key !== undefined) {
      const own = idle.find((slot) => slot.key === key);
      if (own) return own;
    }
    const free = idle.filter((slot) => slot.key === undefined);
    // Never-used sequences last: an existing one costs nothing to reuse.
    const pool = free.length > 0 ? free : idle;
    return pool.sort((a, b) => Number(!a.sequence) - Number(!b.sequence) || a.lastUsed - b.lastUsed)[0];
  }

  private wait(signal: AbortSignal | undefined): Promise<Slot> {
    return new Promise<Slot>((grant, reject) => {
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

  private releaseSlot(slot: Slot, key: string | undefined): void {
    slot.lastUsed = ++this.clock;
    if (key !== undefined && slot.sequence && !slot.sequence.disposed && this.residentLimit > 0) {
      // Two generations of one session at once: the latest keeps the session's state.
      for (const other of this.slots) if (other !== slot && other.key === key) other.key = undefined;
      slot.key = key;
      const resident = this.slots.filter((s) => s.key !== undefined && !s.busy && s !== slot).sort((a, b) => a.lastUsed - b.lastUsed);
      let count = this.slots.filter((s) => s.key !== undefined).length;
      for (const old of resident) {
        if (count <= this.residentLimit) break;
        this.evict(old);
        count--;
      }
    } else if (slot.key !== undefined) {
      this.evict(slot);
    } else if (this.residentLimit === 0) {
      // Reuse switched off: every generation starts from an empty sequence.
      this.clear(slot);
    }
    slot.busy = false;
    // A releasing holder hands its sequence straight to the first waiter, so a newcomer cannot take it in between.
    const next = this.waiters.shift();
    if (!next) return;
    if (next.signal && next.onAbort) next.signal.removeEventListener('abort', next.onAbort);
    next.grant(slot);
  }

  /** The session loses its sequence; the state is cleared so the next borrower starts fresh. */
  private evict(slot: Slot): void {
    slot.key = undefined;
    this.evicted++;
    this.clear(slot);
  }

  private clear(slot: Slot): void {
    const sequence = slot.sequence;
    if (sequence && !sequence.disposed) {
      const previous = slot.clearing ?? Promise.resolve();
      slot.clearing = previous.then(() => sequence.clearHistory()).catch(() => undefined);
    }
  }

  private get active(): number {
    return this.slots.filter((slot) => slot.busy).length;
  }

  get capacity(): number {
    return this.slots.length;
  }

  stats(): ChatContextPoolStats {
    return {
      activeSequences: this.active,
      peakSequences: this.peak,
      sequencesServed: this.served,
      capacity: this.capacity,
      residentSessions: this.slots.filter((slot) => slot.key !== undefined).length,
      evictions: this.evicted,
    };
  }
}
