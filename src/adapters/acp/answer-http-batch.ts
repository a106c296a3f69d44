import type { IncomingMessage, ServerResponse } from 'node:http';
import { PARSE_ERROR, errorResponse, inspectJsonRpcText } from '../json-rpc/inspect-json-rpc.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { peekBodyStart } from './peek-body-start.js';

const OPEN_BRACKET = 0x5b;

/**
 * A POSTed JSON-RPC batch, answered here: ACP v1 has no batches, and the SDK answers any
 * array with one `id: null` error, so a client cannot tell which of its requests failed.
 * Each request in the batch gets its own -32600 (one array, as JSON-RPC answers a batch),
 * notifications get nothing (202 when nothing is left to answer), an empty batch one error.
 * A blank body is answered too (-32700). Returns false, with the body untouched, when the
 * body is not an array.
 */
export async function answerHttpBatch(req: IncomingMessage, res: ServerResponse, limits: JsonRpcLimits, warn?: (message: string) => void): Promise<boolean> {
  const start = await peekBodyStart(req);
  if (start === undefined) {
    // Nothing to hand on: the (blank) body has been read.
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify(errorResponse(null, PARSE_ERROR, 'Parse error: the body is empty; POST one JSON-RPC message')));
    return true;
  }
  if (start !== OPEN_BRACKET) return false;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // A chunked body has no declared length (`refuseOversizedBody` caught the declared ones).
    if (size > limits.maxMessageBytes) {
      res.writeHead(413, { 'content-type': 'text/plain', connection: 'close' });
      res.end(`Request body over ${limits.maxMessageBytes} bytes (maxMessageBytes)`);
      return true;
    }
    chunks.push(chunk);
  }
  const intake = inspectJsonRpcText(Buffer.concat(chunks).toString('utf8'), limits);
  if ('accept' in intake) throw new Error('a body that starts with [ was accepted as one message');
  warn?.(`acp: ${intake.warning}`);
  if (intake.reply === undefined) {
    res.writeHead(202);
    res.end();
  } else {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify(intake.reply));
  }
  return true;
}
