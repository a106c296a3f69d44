import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { internalErrorMessage, isBareInternalError } from '../internal-error-message.js';

/**
 * The MCP SDK answers a handler's unexpected exception (the session store failing under
 * `resources/list`, a bug) as -32603 with the exception's bare message. This gives such an
 * answer a message naming the cause (credentials redacted) and what to do, and tells `warn`
 * the cause; every other message passes through untouched.
 */
export function explainMcpInternalError(message: JSONRPCMessage, warn?: (message: string) => void): JSONRPCMessage {
  const reply = message as { id?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  const error = reply.error;
  if (!error || error.code !== -32603 || typeof error.message !== 'string' || error.message.startsWith('Internal error: ')) return message;
  const cause = isBareInternalError(error.message) ? 'an unexpected error in the server' : error.message;
  warn?.(`mcp: request ${JSON.stringify(reply.id ?? null)} failed: ${cause}`);
  return { ...message, error: { ...error, message: internalErrorMessage(cause) } } as JSONRPCMessage;
}

/** A JSON answer (not a stream) with its error explained as {@link explainMcpInternalError} does; any other answer as it is. */
export async function explainMcpResponse(response: Response, warn?: (message: string) => void): Promise<Response> {
  if (!(response.headers.get('content-type') ?? '').includes('application/json')) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const explained = body && typeof body === 'object' && !Array.isArray(body) && 'error' in body ? explainMcpInternalError(body as JSONRPCMessage, warn) : body;
  if (explained === body) return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(explained), { status: response.status, statusText: response.statusText, headers });
}
