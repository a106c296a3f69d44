import type { AgentOutput } from '../contracts/agent-output.js';
import type { LiveSession } from './session-manager.js';
import { EventRecorder } from './event-recorder.js';
import { SteeringQueue } from './steering-queue.js';
import { errorInfo } from './agent-notices.js';
import { runCleanupSteps } from './run-cleanup-steps.js';
import { recoverInterruptedReply } from './recover-interrupted-reply.js';

/**
 * Runs a turn after the session's previous ones (turns of one session never overlap),
 * recording its events as they pass. The turn gets its own signal, aborted by `signal` and
 * by cancelling the session's running turn; steering left over when it ends goes back to its senders.
 *
 * The end of a turn cannot skip its cleanup: each step (flush, unlink the signal, clear the
 * running turn, hand steering back, release the queue) runs in its own try. A turn that
 * throws (a full disk, arguments no recorder can store) ends with an `error` event carrying
 * the error's code, so the session answers its next prompt.
 */
export async function* runQueuedTurn(
  live: LiveSession,
  signal: AbortSignal | undefined,
  runTurn: (signal: AbortSignal) => AsyncIterable<AgentOutput>,
): AsyncGenerator<AgentOutput> {
  const previous = live.tail;
  let release!: () => void;
  live.tail = new Promise<void>((resolve) => (release = resolve));
  let failure: { error: unknown } | undefined;
  let completed = false;
  let cleanup: () => { error: unknown } | undefined = () => runCleanupSteps([release]);
  try {
    await previous;
    // Left by a turn that ended while the disk was full: folded before this turn adds to the history.
    if (live.draftLeft) foldLeftoverDraft(live);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    const recorder = new EventRecorder(live);
    const running = { controller, steering: new SteeringQueue(), recorder };
    live.running = running;
    cleanup = () =>
      runCleanupSteps([
        () => recorder.flush(),
        () => signal?.removeEventListener('abort', onAbort),
        // A turn that threw may leave tool calls running: they belong to nobody now.
        () => failure && controller.abort(),
        () => {
          if (live.running === running) live.running = undefined;
        },
        // A turn cut short (it threw, or its consumer left mid-step) may leave its streamed text as a
        // draft: folded into the history now, as after a crash, not mixed into the next reply's.
        () => {
          if (!completed) foldLeftoverDraft(live);
        },
        // Steering that arrived after the last model step goes back to its senders: each runs as a turn of its own.
        () => running.steering.release(),
        release,
      ]);
    for await (const event of runTurn(controller.signal)) {
      recorder.record(event);
      yield event;
    }
    completed = true;
  } catch (error) {
    failure = { error };
  } finally {
    const cleanupFailure = cleanup();
    failure ??= cleanupFailure;
  }
  // Reached only when the consumer did not stop the turn itself: report what went wrong, once.
  if (failure) yield { type: 'error', sessionId: live.info.sessionId, error: errorInfo(failure.error, 'internal_error') };
}

/** Marked first: when the fold fails, the next turn retries it. */
function foldLeftoverDraft(live: LiveSession): void {
  live.draftLeft = true;
  const folded = recoverInterruptedReply(live.store, live.info.sessionId);
  live.draftLeft = false;
  if (folded) live.messages.push(folded);
}
