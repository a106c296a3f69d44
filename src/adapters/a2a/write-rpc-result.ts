import type { ServerResponse } from 'node:http';
import { writeSseStream } from './write-sse-stream.js';

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
  const rpcError = (error: unknown) => ({ jsonrpc: '2.0', id: options.id, error: options.mapError(error) });
  await writeSseStream(res, result[Symbol.asyncIterator](), {
    toEvent: (value) => value,
    onEarlyError: (error) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(rpcError(error)));
    },
    errorEvent: rpcError,
    log: (error) => options.log?.(`A2A stream ${String(options.id)} failed: ${(error as Error).message}`),
  });
}

function isAsyncIterable(value: unknown): value is AsyncGenerator<RpcResponse, void, undefined> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}
