import type { AgentOutput } from '../contracts/agent-output.js';
import type { LiveSession } from './session-manager.js';
import { EventRecorder } from './event-recorder.js';
import { SteeringQueue } from './steering-queue.js';
import { runCleanupSteps } from './run-cleanup-steps.js';
import { recoverInterruptedReply } from './recover-interrupted-reply.js';

/**
 * A turn's place in its session, and the session's running turn while it runs: turns of one
 * session never overlap (each waits for the previous one), and the running turn owns its
 * abort controller (aborted by the caller's signal and by cancelling the session), its
 * steering queue and its event recorder.
 *
 * The end of a turn cannot skip its cleanup: each step (flush, unlink the signal, clear the
 * running turn, hand steering back, release the queue) runs in its own try.
 */
export class QueuedTurn {
  readonly controller = new AbortController();
  readonly steering = new SteeringQueue();
  recorder: EventRecorder | undefined;
  readonly #previous: Promise<void>;
  #release!: () => void;
  readonly #onAbort = () => this.controller.abort();

  constructor(
    private readonly live: LiveSession,
    private readonly signal: AbortSignal | undefined,
    /** The caller's `turnKey`: only a prompt with the same key steers this turn. */
    readonly key?: object,
  ) {
    this.#previous = live.tail;
    live.tail = new Promise<void>((resolve) => (this.#release = resolve));
  }

  /** Waits for the session's previous turn, then becomes its running turn. */
  async start(): Promise<void> {
    await this.#previous;
    // Left by a turn that ended while the disk was full: folded before this turn adds to the history.
    if (this.live.draftLeft) await foldLeftoverDraft(this.live);
    this.signal?.addEventListener('abort', this.#onAbort, { once: true });
    if (this.signal?.aborted) this.controller.abort();
    this.recorder = new EventRecorder(this.live);
    this.live.running = this;
  }

  /** Records the event as it passes (streamed text merged, the rest written before the next event). */
  async record(event: AgentOutput): Promise<AgentOutput> {
    await this.recorder?.record(event);
    return event;
  }

  /** Ends the turn: returns the first cleanup failure, for the caller to report once. */
  async end(outcome: { completed: boolean; failed: boolean }): Promise<{ error: unknown } | undefined> {
    if (!this.recorder) return runCleanupSteps([this.#release]);
    const { live } = this;
    return runCleanupSteps([
      () => this.recorder?.flush(),
      () => this.signal?.removeEventListener('abort', this.#onAbort),
      // A turn that threw may leave tool calls running: they belong to nobody now.
      () => outcome.failed && this.controller.abort(),
      () => {
        if (live.running === this) live.running = undefined;
      },
      // A turn cut short (it threw, or its consumer left mid-step) may leave its streamed text as a
      // draft: folded into the history now, as after a crash, not mixed into the next reply's.
      () => {
        if (!outcome.completed) return foldLeftoverDraft(live);
      },
      // Steering that arrived after the last model step goes back to its senders: each runs as a turn of its own.
      () => this.steering.release(),
      this.#release,
    ]);
  }
}

/** Marked first: when the fold fails, the next turn retries it. */
async function foldLeftoverDraft(live: LiveSession): Promise<void> {
  live.draftLeft = true;
  const folded = await recoverInterruptedReply(live.store, live.info.sessionId);
  live.draftLeft = false;
  if (folded) live.messages.push(folded);
}
