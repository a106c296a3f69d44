import type { IncomingMessage } from 'node:http';
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
export async function readJsonBody(req: IncomingMessage, limits: JsonRpcLimits, empty?: unknown): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limits.maxMessageBytes) {
      const head: Buffer[] = [];
      for (let kept = 0, i = 0; i < chunks.length && kept < ID_HEAD_CHARS; kept += chunks[i]!.length, i++) head.push(chunks[i]!);
      const id = recoverJsonRpcId(Buffer.concat([...head, chunk.subarray(0, ID_HEAD_CHARS)]).subarray(0, ID_HEAD_CHARS).toString('utf8'));
      return { ok: false, status: 413, code: -32600, message: `Request body over ${limits.maxMessageBytes} bytes (adapters.a2a.maxMessageBytes)`, id };
    }
    chunks.push(chunk);
  }
  if (empty !== undefined && size === 0) return { ok: true, value: empty };
  const text = Buffer.concat(chunks).toString('utf8');
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
