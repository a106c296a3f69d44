import { inspectJsonRpcText, oversizedIntake, type Refusal } from '../json-rpc/inspect-json-rpc.js';
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
  // Read until the limit is passed, never further: the head still names the request's id.
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limits.maxMessageBytes) {
      await reader.cancel().catch(() => undefined);
      const declared = Number(request.headers.get('content-length') ?? 'NaN');
      const head = Buffer.concat([...chunks, value]).subarray(0, 4096).toString('utf8');
      return refuse(413, oversizedIntake(head, Number.isFinite(declared) ? declared : bytes, limits), warn);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const intake = inspectJsonRpcText(text, limits);
  if ('reply' in intake) return refuse(400, intake, warn);
  return { request: new Request(request, { body: text }), text };
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
