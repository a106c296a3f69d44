import type { AgentOutput, StoredAgentOutput } from '../contracts/agent-output.js';
import type { LiveSession } from './session-manager.js';
import { isStorable } from '../contracts/agent-output.js';

/** Streamed text is persisted at least this often while it streams (ms)… */
export const STREAM_FLUSH_MS = 200;
/** …and whenever this many characters are waiting. */
export const STREAM_FLUSH_CHARS = 2_048;

/**
 * Persists a turn's events as they pass: consecutive text (or thought) deltas are merged
 * into one stored chunk; everything is written before the next non-delta event, and
 * streamed text at least every STREAM_FLUSH_MS / STREAM_FLUSH_CHARS, each flush one
 * transaction that also extends the session's stream draft. A crash mid-reply so loses at
 * most one interval of text, and the draft lets the next opener put the reply into history.
 */
export class EventRecorder {
  #buffer: StoredAgentOutput[] = [];
  #draft = { text: '', reasoning: '' };
  #timer: NodeJS.Timeout | undefined;
  /** The write in flight (settled, never rejected): flushes run one after another, so a turn's order on record is its order. */
  #writing: Promise<void> = Promise.resolve();
  /** Set when a timed flush was fenced out (another process took the session over): the turn stops at the next event. */
  #fencedOut: unknown;

  constructor(private readonly live: LiveSession) {}

  /** Resolves once the event is stored (or buffered, for streamed text); rejects with the store's error. */
  async record(event: AgentOutput): Promise<void> {
    if (this.#fencedOut) throw this.#fencedOut;
    if (!isStorable(event) || event.type === 'usage') return;
    if (event.type === 'text-delta' || event.type === 'thought-delta') {
      if (event.type === 'text-delta') this.#draft.text += event.text;
      else this.#draft.reasoning += event.text;
      const last = this.#buffer[this.#buffer.length - 1];
      if (last?.type === event.type) this.#buffer[this.#buffer.length - 1] = { ...last, text: last.text + event.text };
      else this.#buffer.push(event);
      if (this.#draft.text.length + this.#draft.reasoning.length >= STREAM_FLUSH_CHARS) await this.flush();
      else this.#timer ??= setTimeout(() => void this.#flushQuietly(), STREAM_FLUSH_MS).unref();
      return;
    }
    this.#buffer.push(event);
    await this.flush();
  }

  /** Writes what is buffered, after any write in flight; a failed batch goes back to the buffer's front for the next flush. */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    // Another flush may start its write while this one waits: wait until none is in flight.
    for (let pending = this.#writing; ; pending = this.#writing) {
      await pending;
      if (pending === this.#writing) break;
    }
    if (this.#buffer.length === 0) return;
    const batch = this.#buffer;
    const draft = this.#draft;
    this.#buffer = [];
    this.#draft = { text: '', reasoning: '' };
    const write = this.live.store.appendEvents(this.live.info.sessionId, batch, draft).catch((error: unknown) => {
      this.#buffer = [...batch, ...this.#buffer];
      this.#draft = { text: draft.text + this.#draft.text, reasoning: draft.reasoning + this.#draft.reasoning };
      throw error;
    });
    this.#writing = write.then(
      () => undefined,
      () => undefined,
    );
    await write;
  }

  /** From the timer: a failed write keeps the buffer for the next flush instead of crashing the process. */
  async #flushQuietly(): Promise<void> {
    try {
      await this.flush();
    } catch (error) {
      // The next event or the turn's end flushes again, and reports a lasting failure there;
      // a lost lease is lasting at once: the next event stops the turn.
      if (error instanceof Error && 'code' in error && error.code === 'session_in_use') this.#fencedOut = error;
    }
  }
}
