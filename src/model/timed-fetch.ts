import { formatDuration } from './format-duration.js';
import { ModelError } from './model-error.js';
import { watchedBody } from './watched-body.js';

/** `agent.modelTimeouts`: how long a model call may go without a word from its endpoint. */
export interface ModelTimeouts {
  /** From the request sent to the reply's first byte (its status and headers). */
  replyMs: number;
  /** Between two pieces of a reply that has begun (a stream that stalls). */
  streamIdleMs: number;
}

/** Undici's own limits (a local server loading a big model, or a long prompt on a CPU, takes minutes). */
export const DEFAULT_MODEL_TIMEOUTS: ModelTimeouts = { replyMs: 300_000, streamIdleMs: 300_000 };

/**
 * `fetch` that gives up on an endpoint that accepted the connection and then says nothing: no
 * reply within `replyMs`, or a reply whose stream stalls for `streamIdleMs`. It fails as fetch
 * fails (a `TypeError` whose cause is a `model_call_timeout` ModelError naming the setting), so
 * the SDK reports it with the URL and the error describer names the setting; the request is
 * aborted, its connection closed. A reply seen in time, and the caller's own abort, are untouched.
 */
export function timedFetch(base: typeof fetch, timeouts: ModelTimeouts): typeof fetch {
  return async (input, init) => {
    const controller = new AbortController();
    const outer = init?.signal ?? undefined;
    const abortWithOuter = () => controller.abort(outer?.reason);
    if (outer?.aborted) abortWithOuter();
    outer?.addEventListener('abort', abortWithOuter, { once: true });
    let timedOut: ModelError | undefined;
    const timer = setTimeout(() => {
      timedOut = timeoutError(`sent no reply for ${formatDuration(timeouts.replyMs)} (agent.modelTimeouts.replyMs)`, 'reply');
      controller.abort(timedOut);
    }, timeouts.replyMs);
    let response: Response;
    try {
      response = await base(input, { ...init, signal: controller.signal });
    } catch (error) {
      outer?.removeEventListener('abort', abortWithOuter);
      throw timedOut ? new TypeError('fetch failed', { cause: timedOut }) : error;
    } finally {
      clearTimeout(timer);
    }
    return watchedBody(response, {
      onEnd: () => outer?.removeEventListener('abort', abortWithOuter),
      idle: {
        ms: timeouts.streamIdleMs,
        error: () => timeoutError(`sent nothing more for ${formatDuration(timeouts.streamIdleMs)} (agent.modelTimeouts.streamIdleMs)`, 'stream'),
        onStall: () => controller.abort(),
      },
    });
  };
}

function timeoutError(what: string, phase: 'reply' | 'stream'): ModelError {
  return new ModelError('model_call_timeout', what, { context: { phase } });
}
