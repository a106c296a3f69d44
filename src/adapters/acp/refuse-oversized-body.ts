import type { IncomingMessage, ServerResponse } from 'node:http';
import { oversizedIntake } from '../json-rpc/inspect-json-rpc.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';

const HEAD_BYTES = 4096;

/**
 * An HTTP body whose declared length is over `maxMessageBytes` is answered 413 with the
 * JSON-RPC error (and the request's id when its head names one), like the stdio face,
 * instead of the SDK's plain-text 413; the rest of the body is drained, never held.
 * Returns false when the body is not declared too large (the SDK still caps chunked ones).
 */
export function refuseOversizedBody(req: IncomingMessage, res: ServerResponse, limits: JsonRpcLimits, warn?: (message: string) => void): boolean {
  const declared = Number(req.headers['content-length']);
  if (!Number.isFinite(declared) || declared <= limits.maxMessageBytes) return false;
  let head = Buffer.alloc(0);
  let answered = false;
  const answer = () => {
    if (answered) return;
    answered = true;
    const refusal = oversizedIntake(head.subarray(0, HEAD_BYTES).toString('utf8'), declared, limits);
    warn?.(`acp: ${refusal.warning}`);
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify(refusal.reply));
  };
  req.on('data', (chunk: Buffer) => {
    if (answered) return;
    head = Buffer.concat([head, chunk]);
    if (head.length >= HEAD_BYTES) answer();
  });
  req.on('end', answer);
  req.on('error', () => undefined);
  return true;
}
