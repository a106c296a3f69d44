import { oversizedIntake, type Refusal } from '../json-rpc/inspect-json-rpc.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';

const HEAD_BYTES = 4096;

/**
 * A request body as text, read until `maxMessageBytes` is passed and never further (a larger
 * one is refused with the JSON-RPC error naming the limit, and the request's id when its head
 * names one; the caller answers 413 and closes the connection rather than draining it).
 */
export async function readBoundedBody(request: Request, limits: JsonRpcLimits): Promise<{ text: string } | { oversized: Refusal }> {
  if (!request.body) return { text: '' };
  const declared = Number(request.headers.get('content-length') ?? 'NaN');
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limits.maxMessageBytes || declared > limits.maxMessageBytes) {
      await reader.cancel().catch(() => undefined);
      const head = Buffer.concat([...chunks, value]).subarray(0, HEAD_BYTES).toString('utf8');
      return { oversized: oversizedIntake(head, Number.isFinite(declared) ? declared : bytes, limits) };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
}
