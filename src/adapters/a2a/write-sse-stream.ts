import type { ServerResponse } from 'node:http';
import { SSE_HEADERS, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';

/**
 * Streams an iterator's events as server-sent events, for both A2A bindings (JSON-RPC and
 * REST). The first event is awaited before anything is written, so a stream that fails at
 * once can still be answered in the binding's plain error shape (`onEarlyError`); after that
 * a failure is an SSE `error` event (`errorEvent`). A client that goes away stops the
 * stream, never the task behind it (it can resubscribe).
 */
export async function writeSseStream<T>(
  res: ServerResponse,
  iterator: AsyncIterator<T, void, undefined>,
  options: {
    toEvent: (value: T) => unknown;
    onEarlyError: (error: unknown) => void;
    errorEvent: (error: unknown) => unknown;
    log?: (error: unknown) => void;
  },
): Promise<void> {
  let first: IteratorResult<T, void>;
  try {
    first = await iterator.next();
  } catch (error) {
    return options.onEarlyError(error);
  }
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  let gone = false;
  const onClose = () => {
    gone = true;
    void iterator.return?.(undefined).catch(() => undefined);
  };
  res.once('close', onClose);
  try {
    if (!first.done) res.write(formatSSEEvent(options.toEvent(first.value)));
    while (!gone) {
      const next = await iterator.next();
      if (next.done) break;
      res.write(formatSSEEvent(options.toEvent(next.value)));
    }
  } catch (error) {
    options.log?.(error);
    if (!res.writableEnded) res.write(formatSSEErrorEvent(options.errorEvent(error)));
  } finally {
    res.off('close', onClose);
    if (!res.writableEnded) res.end();
  }
}
