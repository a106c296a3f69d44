import type { AgentOutput, StoredAgentOutput } from './agent-output.js';
import type { LiveSession } from './session-manager.js';
import { isStorable } from './agent-output.js';

/**
 * Persists a turn's events as they pass: consecutive text (or thought) deltas are
 * merged into one stored chunk, and everything is written before the next non-delta event.
 */
export class EventRecorder {
  #buffer: StoredAgentOutput[] = [];
  constructor(private readonly live: LiveSession) {}

  record(event: AgentOutput): void {
    if (!isStorable(event) || event.type === 'usage') return;
    const last = this.#buffer[this.#buffer.length - 1];
    if ((event.type === 'text-delta' || event.type === 'thought-delta') && last?.type === event.type) {
      this.#buffer[this.#buffer.length - 1] = { ...last, text: last.text + event.text };
      return;
    }
    this.#buffer.push(event);
    if (event.type !== 'text-delta' && event.type !== 'thought-delta') this.flush();
  }

  flush(): void {
    if (this.#buffer.length === 0) return;
    this.live.store.appendEvents(this.live.info.sessionId, this.#buffer);
    this.#buffer = [];
  }
}
