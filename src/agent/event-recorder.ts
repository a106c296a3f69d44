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
  /** Set when a timed flush was fenced out (another process took the session over): the turn stops at the next event. */
  #fencedOut: unknown;

  constructor(private readonly live: LiveSession) {}

  record(event: AgentOutput): void {
    if (this.#fencedOut) throw this.#fencedOut;
    if (!isStorable(event) || event.type === 'usage') return;
    if (event.type === 'text-delta' || event.type === 'thought-delta') {
      if (event.type === 'text-delta') this.#draft.text += event.text;
      else this.#draft.reasoning += event.text;
      const last = this.#buffer[this.#buffer.length - 1];
      if (last?.type === event.type) this.#buffer[this.#buffer.length - 1] = { ...last, text: last.text + event.text };
      else this.#buffer.push(event);
      if (this.#draft.text.length + this.#draft.reasoning.length >= STREAM_FLUSH_CHARS) this.flush();
      else this.#timer ??= setTimeout(() => this.#flushQuietly(), STREAM_FLUSH_MS).unref();
      return;
    }
    this.#buffer.push(event);
    this.flush();
  }

  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buffer.length === 0) return;
    this.live.store.appendEvents(this.live.info.sessionId, this.#buffer, this.#draft);
    this.#buffer = [];
    this.#draft = { text: '', reasoning: '' };
  }

  /** From the timer: a failed write keeps the buffer for the next flush instead of crashing the process. */
  #flushQuietly(): void {
    try {
      this.flush();
    } catch (error) {
      // The next event or the turn's end flushes again, and reports a lasting failure there;
      // a lost lease is lasting at once: the next event stops the turn.
      if (error instanceof Error && 'code' in error && error.code === 'session_in_use') this.#fencedOut = error;
    }
  }
}
