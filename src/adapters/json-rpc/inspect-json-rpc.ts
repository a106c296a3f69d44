import { textNestsDeeperThan, valueNestsDeeperThan } from './json-nesting-depth.js';
import type { JsonRpcLimits } from './json-rpc-limits.js';
import { recoverJsonRpcId, type JsonRpcId } from './recover-json-rpc-id.js';

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string; data?: unknown };
}

/**
 * What to do with one incoming message: hand it to the protocol SDK, or refuse it with the
 * reply to send (JSON-RPC says requests, even malformed ones, are answered; a batch gets an
 * array) and a warning for stderr. Nothing here throws.
 */
export type Refusal = { reply: JsonRpcErrorResponse | JsonRpcErrorResponse[] | undefined; warning: string };
export type Intake = { accept: Record<string, unknown> } | Refusal;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
/** The id, read from the head of a message that is not parsed. */
const ID_HEAD_CHARS = 4096;

export function errorResponse(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** A message whose size is over the limit (its head only is kept). */
export function oversizedIntake(head: string, bytes: number, limits: JsonRpcLimits): Refusal {
  const id = recoverJsonRpcId(head.slice(0, ID_HEAD_CHARS));
  const message = `Message too large: ${bytes} bytes, the limit is ${limits.maxMessageBytes} (maxMessageBytes)`;
  return { reply: errorResponse(id, INVALID_REQUEST, message, { maxMessageBytes: limits.maxMessageBytes }), warning: `refused a ${bytes}-byte message (limit ${limits.maxMessageBytes})` };
}

/** One line/body of text: depth-checked, parsed, then checked as a JSON-RPC envelope. */
export function inspectJsonRpcText(text: string, limits: JsonRpcLimits): Intake {
  if (Buffer.byteLength(text) > limits.maxMessageBytes) return oversizedIntake(text.slice(0, ID_HEAD_CHARS), Buffer.byteLength(text), limits);
  if (textNestsDeeperThan(text, limits.maxDepth)) return tooDeep(recoverJsonRpcId(text.slice(0, ID_HEAD_CHARS)), limits);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { reply: errorResponse(null, PARSE_ERROR, 'Parse error', { details: (error as Error).message.slice(0, 200) }), warning: 'refused a line that is not JSON' };
  }
  return inspectEnvelope(value);
}

/** An already parsed message (HTTP/WebSocket transports parse before we see it). */
export function inspectJsonRpcValue(value: unknown, limits: JsonRpcLimits): Intake {
  if (valueNestsDeeperThan(value, limits.maxDepth)) {
    const id = typeof value === 'object' && value !== null && !Array.isArray(value) ? validId((value as Record<string, unknown>).id) : null;
    return tooDeep(id ?? null, limits);
  }
  return inspectEnvelope(value);
}

function tooDeep(id: JsonRpcId, limits: JsonRpcLimits): Intake {
  return {
    reply: errorResponse(id, INVALID_REQUEST, `Message nests deeper than ${limits.maxDepth} levels (maxJsonDepth)`, { maxJsonDepth: limits.maxDepth }),
    warning: `refused a message nested deeper than ${limits.maxDepth} levels`,
  };
}

function inspectEnvelope(value: unknown): Intake {
  if (Array.isArray(value)) {
    // Batches are not part of ACP or current MCP: each request in one gets its own -32600,
    // in one array as JSON-RPC 2.0 answers a batch; an empty batch gets a single error.
    if (value.length === 0) return { reply: errorResponse(null, INVALID_REQUEST, 'Invalid Request: empty batch'), warning: 'refused an empty batch' };
    const replies = value.flatMap((entry) => {
      const object = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? (entry as Record<string, unknown>) : undefined;
      if (object && typeof object.method === 'string' && !('id' in object)) return [];
      return [errorResponse(object ? (validId(object.id) ?? null) : null, INVALID_REQUEST, 'Invalid Request: JSON-RPC batches are not supported; send each message on its own')];
    });
    return { reply: replies.length > 0 ? replies : undefined, warning: `refused a batch of ${value.length} messages` };
  }
  if (typeof value !== 'object' || value === null) return { reply: errorResponse(null, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC object'), warning: 'refused a non-object message' };
  const message = value as Record<string, unknown>;
  const hasId = 'id' in message;
  const id = validId(message.id);
  const refuse = (reason: string): Intake => ({
    reply: errorResponse(id ?? null, INVALID_REQUEST, `Invalid Request: ${reason}`),
    warning: `refused an invalid message: ${reason}`,
  });
  if (hasId && id === undefined) return refuse('id must be a string, a number or null');
  if (message.jsonrpc !== '2.0') return refuse('jsonrpc must be "2.0"');
  if ('method' in message) {
    if (typeof message.method !== 'string') return refuse('method must be a string');
    if (message.params !== undefined && (typeof message.params !== 'object' || message.params === null)) return refuse('params must be an object or an array');
    return { accept: message };
  }
  if ('result' in message || 'error' in message) {
    // A response to one of our requests: the SDK matches it (or ignores a stray one).
    if (!hasId) return { reply: undefined, warning: 'dropped a response without an id' };
    return { accept: message };
  }
  return refuse('neither a request (method) nor a response (result or error)');
}

/** A JSON-RPC id (string, finite number, null), or undefined when the value is none of those. */
function validId(value: unknown): JsonRpcId | undefined {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return undefined;
}
