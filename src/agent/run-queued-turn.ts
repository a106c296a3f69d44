import type { AgentOutput } from './agent-output.js';
import type { LiveSession } from './session-manager.js';
import { EventRecorder } from './event-recorder.js';
import { SteeringQueue } from './steering-queue.js';

/**
 * Runs a turn after the session's previous ones (turns of one session never overlap),
 * recording its events as they pass. The turn gets its own signal, aborted by `signal` and
 * by cancelling the session's running turn; steering left over when it ends goes back to its senders.
 */
export async function* runQueuedTurn(
  live: LiveSession,
  signal: AbortSignal | undefined,
  runTurn: (signal: AbortSignal) => AsyncIterable<AgentOutput>,
): AsyncGenerator<AgentOutput> {
  const previous = live.tail;
  let release!: () => void;
  live.tail = new Promise<void>((resolve) => (release = resolve));
  try {
    await previous;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    const recorder = new EventRecorder(live);
    live.running = { controller, steering: new SteeringQueue(), recorder };
    const running = live.running;
    try {
      for await (const event of runTurn(controller.signal)) {
        recorder.record(event);
        yield event;
      }
    } finally {
      recorder.flush();
      signal?.removeEventListener('abort', onAbort);
      live.running = undefined;
      // Steering that arrived after the last model step goes back to its senders: each runs as a turn of its own.
      running.steering.release();
    }
  } finally {
    release();
  }
}
