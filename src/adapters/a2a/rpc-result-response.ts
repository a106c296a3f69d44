import { explainRpcError } from './explain-rpc-error.js';
import { sseStreamResponse } from './sse-stream-response.js';

type RpcResponse = { jsonrpc: string; id: string | number | null; result?: unknown; error?: unknown };
type RpcError = { code: number; message: string; data?: unknown };

/**
 * What a JSON-RPC transport handler returned, as the HTTP answer: one JSON response, or a
 * stream as server-sent events. A stream that fails before its first event is answered as a
 * plain JSON-RPC error. A client that goes away stops the stream, never the task (it can resubscribe).
 */
export async function rpcResultResponse(
  result: RpcResponse | AsyncGenerator<RpcResponse, void, undefined>,
  options: { id: string | number | null; mapError: (error: unknown) => RpcError; log?: (message: string) => void },
): Promise<Response> {
  if (!isAsyncIterable(result)) return rpcJson(explained(result, options.log));
  const rpcError = (error: unknown) => ({ jsonrpc: '2.0', id: options.id, error: options.mapError(error) });
  return sseStreamResponse(result[Symbol.asyncIterator](), {
    toEvent: (value) => value,
    onEarlyError: (error) => rpcJson(rpcError(error)),
    errorEvent: rpcError,
    log: (error) => options.log?.(`A2A stream ${String(options.id)} failed: ${(error as Error).message}`),
  });
}

/** The transport handler's answer, with an unexpected exception it caught (a bare `-32603`) explained; the cause is logged. */
function explained(response: RpcResponse, log: ((message: string) => void) | undefined): RpcResponse {
  const error = response.error as RpcError | undefined;
  if (!error || typeof error.message !== 'string') return response;
  const better = explainRpcError(error);
  if (better === error) return response;
  log?.(`A2A request ${String(response.id)} failed: ${error.message}`);
  return { ...response, error: better };
}

/** A JSON-RPC answer (a result or an error), HTTP 200 unless said otherwise. */
export function rpcJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function isAsyncIterable(value: unknown): value is AsyncGenerator<RpcResponse, void, undefined> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}
