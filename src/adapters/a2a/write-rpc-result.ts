import type { ServerResponse } from 'node:http';
import { SSE_HEADERS, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';

type RpcResponse = { jsonrpc: string; id: string | number | null; result?: unknown; error?: unknown };
type RpcError = { code: number; message: string; data?: unknown };

/**
 * Writes what a JSON-RPC transport handler returned: one JSON response, or a stream as
 * server-sent events. A stream that fails before its first event is answered as a plain
 * JSON-RPC error. A client that goes away stops the stream, never the task (it can resubscribe).
 */
export async function writeRpcResult(
  res: ServerResponse,
  result: RpcResponse | AsyncGenerator<RpcResponse, void, undefined>,
  options: { id: string | number | null; mapError: (error: unknown) => RpcError; log?: (message: string) => void },
): Promise<void> {
  if (!isAsyncIterable(result)) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(result));
    return;
  }
  const iterator = result[Symbol.asyncIterator]();
  let first: IteratorResult<RpcResponse, void>;
  try {
    first = await iterator.next();
  } catch (error) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: options.id, error: options.mapError(error) }));
    return;
  }
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  let gone = false;
  const onClose = () => {
    gone = true;
    void iterator.return(undefined).catch(() => undefined);
  };
  res.once('close', onClose);
  try {
    if (!first.done) res.write(formatSSEEvent(first.value));
    while (!gone) {
      const next = await iterator.next();
      if (next.done) break;
      res.write(formatSSEEvent(next.value));
    }
  } catch (error) {
    options.log?.(`A2A stream ${String(options.id)} failed: ${(error as Error).message}`);
    if (!res.writableEnded) res.write(formatSSEErrorEvent({ jsonrpc: '2.0', id: options.id, error: options.mapError(error) }));
  } finally {
    res.off('close', onClose);
    if (!res.writableEnded) res.end();
  }
}

function isAsyncIterable(value: unknown): value is AsyncGenerator<RpcResponse, void, undefined> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}
