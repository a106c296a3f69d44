import { SSE_HEADERS, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';

const encoder = new TextEncoder();

/**
 * An iterator's events as a server-sent-events response, for both A2A bindings (JSON-RPC and
 * REST). The first event is awaited before answering, so a stream that fails at once is
 * answered in the binding's plain error shape (`onEarlyError`); after that a failure is an SSE
 * `error` event (`errorEvent`). The next event is read only when the client has taken the last
 * one (backpressure); a client that goes away stops the stream, never the task behind it (it can
 * resubscribe).
 */
export async function sseStreamResponse<T>(
  iterator: AsyncIterator<T, void, undefined>,
  options: {
    toEvent: (value: T) => unknown;
    onEarlyError: (error: unknown) => Response;
    errorEvent: (error: unknown) => unknown;
    log?: (error: unknown) => void;
  },
): Promise<Response> {
  let first: IteratorResult<T, void>;
  try {
    first = await iterator.next();
  } catch (error) {
    return options.onEarlyError(error);
  }
  let pending: IteratorResult<T, void> | undefined = first;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending ?? (await iterator.next());
        pending = undefined;
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(formatSSEEvent(options.toEvent(next.value))));
      } catch (error) {
        options.log?.(error);
        controller.enqueue(encoder.encode(formatSSEErrorEvent(options.errorEvent(error))));
        controller.close();
      }
    },
    async cancel() {
      await iterator.return?.(undefined).catch(() => undefined);
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
