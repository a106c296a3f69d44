import type { ModelCallLimiter } from './model-call-limiter.js';

/** Socket errors that mean the connection was dead before the server answered anything. */
const STALE_SOCKET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * The `fetch` an HTTP model provider calls: each call first takes a slot of `limiter` (waiting
 * in line, or leaving the line when its request is aborted) and holds it until the response
 * body is read to its end, fails or is cancelled, so the cap counts open connections, streams
 * included. A call that fails on a stale keep-alive socket (the server closed an idle connection,
 * typically while this process was busy: "other side closed") before any byte of a response
 * arrived is sent once more, on a fresh connection: the pool drops the dead socket first.
 */
export function createModelFetch(limiter: ModelCallLimiter, base: typeof fetch = (input, init) => globalThis.fetch(input, init)): typeof fetch {
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    const release = await limiter.acquire(signal);
    signal?.addEventListener('abort', release, { once: true });
    let response: Response;
    try {
      response = await base(input, init).catch((error: unknown) => {
        if (!retryable(error, init)) throw error;
        return base(input, init);
      });
    } catch (error) {
      release();
      throw error;
    }
    return releasedAtEnd(response, release);
  };
}

function retryable(error: unknown, init: RequestInit | undefined): boolean {
  if (init?.signal?.aborted) return false;
  // A body that is a stream was consumed by the first attempt; the AI SDK sends strings.
  if (init?.body !== undefined && init.body !== null && typeof init.body !== 'string') return false;
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' && STALE_SOCKET_CODES.has(cause.code);
}

/** The same response, whose body calls `release` once it ends, fails or is cancelled. */
function releasedAtEnd(response: Response, release: () => void): Response {
  if (!response.body) {
    release();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
