import type { IncomingMessage } from 'node:http';

export type JsonBody = { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string };

/**
 * Reads a request body as JSON, refusing more than `maxBytes` (the caller then answers and
 * closes the connection rather than draining it). Bad JSON is JSON-RPC's parse error (-32700).
 * With `empty`, a body of no bytes reads as that value (a REST POST such as `:cancel` has none).
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number, empty?: unknown): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      return { ok: false, status: 413, code: -32600, message: `Request body over ${maxBytes} bytes` };
    }
    chunks.push(chunk);
  }
  if (empty !== undefined && size === 0) return { ok: true, value: empty };
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch (error) {
    return { ok: false, status: 200, code: -32700, message: `Parse error: ${(error as Error).message}` };
  }
}
