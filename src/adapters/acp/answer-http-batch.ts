import { inspectJsonRpcText } from '../json-rpc/inspect-json-rpc.js';
import { parseBatch } from '../json-rpc/json-rpc-batches.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import type { AcpHttpBatchLink } from './acp-http-batch-link.js';

/**
 * A POSTed JSON-RPC batch (a body that starts with `[`), answered here rather than by the SDK
 * (which answers any array with one `id: null` error, so a client cannot tell which request failed).
 * On a v2 (draft) connection the batch is served as JSON-RPC 2.0 says: one response per request,
 * in one array, in the POST's response (200); notifications get none (202 when nothing is left to
 * answer); each entry is checked like a single message, the batch's size and depth count as one
 * message's. Otherwise (v1, which has no batches, or before `initialize`) each request gets its
 * own -32600. An empty batch is one -32600 either way.
 */
export async function answerHttpBatch(
  text: string,
  link: AcpHttpBatchLink | undefined,
  options: { limits: JsonRpcLimits; signal: AbortSignal; warn?: (message: string) => void },
): Promise<Response> {
  const { limits, warn } = options;
  const entries = link?.answersBatches ? parseBatch(text, limits) : undefined;
  if (entries && link) {
    const answer = await link.answer(entries, options.signal, warn);
    return answer === undefined ? new Response(null, { status: 202 }) : json(200, answer);
  }
  const intake = inspectJsonRpcText(text, limits);
  if ('accept' in intake) throw new Error('a body that starts with [ was accepted as one message');
  warn?.(`acp: ${intake.warning}`);
  return intake.reply === undefined ? new Response(null, { status: 202 }) : json(400, intake.reply);
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}
