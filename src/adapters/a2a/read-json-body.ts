import { readBoundedBody } from '../http/read-bounded-body.js';
import { textNestsDeeperThan } from '../json-rpc/json-nesting-depth.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { recoverJsonRpcId, type JsonRpcId } from '../json-rpc/recover-json-rpc-id.js';

export type JsonBody = { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string; id: JsonRpcId };

/** The id is read from this much of a body that is not parsed. */
const ID_HEAD_CHARS = 4096;

/**
 * Reads a request body as JSON within the face's limits: more than `maxMessageBytes` is
 * refused (the caller then answers and closes the connection rather than draining it), so is
 * nesting deeper than `maxDepth`, checked before `JSON.parse` as on the ACP face (the SDK's
 * converters and our stores recurse). Bad JSON is JSON-RPC's parse error (-32700). A refused
 * body carries the request's id when it can be read from the head. With `empty`, a body of
 * no bytes reads as that value (a REST POST such as `:cancel` has none).
 */
export async function readJsonBody(request: Request, limits: JsonRpcLimits, empty?: unknown): Promise<JsonBody> {
  const body = await readBoundedBody(request, limits);
  if ('oversized' in body) {
    const reply = body.oversized.reply;
    const id = reply && !Array.isArray(reply) ? reply.id : null;
    return { ok: false, status: 413, code: -32600, message: `Request body over ${limits.maxMessageBytes} bytes (adapters.a2a.maxMessageBytes)`, id };
  }
  const text = body.text;
  if (empty !== undefined && text.length === 0) return { ok: true, value: empty };
  if (textNestsDeeperThan(text, limits.maxDepth)) {
    const message = `Invalid Request: the body nests deeper than ${limits.maxDepth} levels (adapters.a2a.maxJsonDepth); send flatter metadata`;
    return { ok: false, status: 200, code: -32600, message, id: recoverJsonRpcId(text.slice(0, ID_HEAD_CHARS)) };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, status: 200, code: -32700, message: `Parse error: ${(error as Error).message.slice(0, 200)}`, id: null };
  }
}
