import { readBoundedBody } from '../http/read-bounded-body.js';
import { inspectJsonRpcText, type Refusal } from '../json-rpc/inspect-json-rpc.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';

/**
 * The stdio face's checks for one HTTP POST body: too large (413), too deep or not a
 * JSON-RPC message (400) are answered here with the JSON-RPC error, so the SDK only sees
 * bodies it can handle. Returns the request to pass on (its body re-read from the text) or
 * the response to send.
 */
export async function guardMcpHttpRequest(
  request: Request,
  limits: JsonRpcLimits,
  warn?: (message: string) => void,
): Promise<{ request: Request; text?: string } | { response: Response }> {
  if (request.method !== 'POST' || !request.body) return { request };
  const body = await readBoundedBody(request, limits);
  if ('oversized' in body) return refuse(413, body.oversized, warn);
  const text = body.text;
  const intake = inspectJsonRpcText(text, limits);
  if ('reply' in intake) return refuse(400, intake, warn);
  // A new request rather than `new Request(request, …)`: the core's request is a lightweight stand-in.
  return { request: new Request(request.url, { method: request.method, headers: request.headers, body: text, signal: request.signal }), text };
}

function refuse(status: number, intake: Refusal, warn?: (message: string) => void): { response: Response } {
  warn?.(`mcp: ${intake.warning}`);
  return {
    response: new Response(intake.reply === undefined ? null : JSON.stringify(intake.reply), {
      status: intake.reply === undefined ? 202 : status,
      headers: { 'content-type': 'application/json' },
    }),
  };
}

/**
 * The SDK's HTTP transport answers some refusals of a request (a second `initialize` on a
 * session, a bad protocol-version header) with `id: null`. JSON-RPC wants the request's id
 * when it is known: this puts it back, for a single request whose id is valid.
 */
export async function withRequestId(requestText: string | undefined, response: Response): Promise<Response> {
  if (!requestText || response.status < 400 || !(response.headers.get('content-type') ?? '').includes('application/json')) return response;
  let id: unknown;
  try {
    id = (JSON.parse(requestText) as { id?: unknown }).id;
  } catch {
    return response;
  }
  if (typeof id !== 'string' && typeof id !== 'number') return response;
  const text = await response.text();
  let body: { id?: unknown; error?: unknown } | undefined;
  try {
    body = JSON.parse(text) as { id?: unknown; error?: unknown };
  } catch {
    body = undefined;
  }
  const fixed = body && !Array.isArray(body) && body.error !== undefined && body.id === null ? JSON.stringify({ ...body, id }) : text;
  return new Response(fixed, { status: response.status, statusText: response.statusText, headers: response.headers });
}
