import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real OpenAI-compatible HTTP endpoint whose replies are scripted: lets tests drive
 * the product's `openai-compatible:` model path (and anything else that speaks the chat
 * completions API) over real HTTP and real SSE, without a model. Binds 127.0.0.1 only.
 */

export interface ScriptToolCall {
  /** Defaults to `call_<request>_<position>`, unique across the server's life. */
  id?: string;
  name: string;
  /** An object (sent as its JSON) or a raw string (sent verbatim, e.g. to test broken JSON). */
  arguments: unknown;
}

export interface ScriptStep {
  text?: string;
  /** Sent as `delta.reasoning_content` (`message.reasoning_content` when not streaming). */
  reasoning?: string;
  toolCalls?: ScriptToolCall[];
  /** Defaults to `tool_calls` when there are tool calls, `stop` otherwise. */
  finishReason?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  /** Defaults to a rough estimate (4 characters a token). */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Wait before the first chunk (or the whole non-streaming reply). */
  delayMs?: number;
  /** Wait between chunks. */
  chunkDelayMs?: number;
  /** SSE `data:` payloads sent verbatim just before the finish chunk (malformed chunks: `{not json}`). */
  rawChunks?: string[];
  /** SSE `data:` payloads sent verbatim instead of the generated chunks (then `[DONE]`). */
  stream?: string[];
  /** Answer with this HTTP status and `errorBody` instead of a completion. */
  status?: number;
  errorBody?: unknown;
  /** Hold the reply until this settles (the test decides when a request may finish). */
  until?: Promise<unknown>;
  /** Stream the first `chunks` payloads, then hold the rest until `until` settles (a reply caught mid-stream). */
  holdAfter?: { chunks: number; until: Promise<unknown> };
  /**
   * Close the connection without a byte of reply, as a server does with a keep-alive socket it
   * dropped while the client was not looking: the client sees "other side closed".
   */
  dropConnection?: boolean;
}

/** A parsed `POST /v1/chat/completions` body. */
export interface RecordedRequest {
  model: string;
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string; [key: string]: unknown }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  [key: string]: unknown;
}

export type Script = ScriptStep[] | ((request: RecordedRequest, index: number) => ScriptStep);

export interface ScriptedOpenAIServer {
  /** Base URL ending in `/v1`, for `createOpenAICompatible({ baseURL })`. */
  url: string;
  /** Every chat request body, in arrival order. */
  requests: RecordedRequest[];
  /** Headers of each chat request, parallel to `requests`. */
  requestHeaders: IncomingHttpHeaders[];
  /** The URL (path and query) of each chat request, parallel to `requests`. */
  requestUrls: string[];
  /** Queues more steps; they are served before the script function (if any) is asked. */
  push(...steps: ScriptStep[]): void;
  /** Queued steps no request took yet (a test that shares the server checks none is left for the next). */
  pending(): number;
  /** Chat requests being answered right now. */
  open(): number;
  /** The most chat requests that were ever being answered at once. */
  peakOpen(): number;
  /** Aborts open responses and stops listening. */
  close(): Promise<void>;
}

export const EXHAUSTED_TEXT = '(script exhausted)';

export async function startScriptedOpenAIServer(script: Script = []): Promise<ScriptedOpenAIServer> {
  const queue: ScriptStep[] = Array.isArray(script) ? [...script] : [];
  const respond = typeof script === 'function' ? script : undefined;
  const requests: RecordedRequest[] = [];
  const requestHeaders: IncomingHttpHeaders[] = [];
  const requestUrls: string[] = [];
  // Pending waits, so close() can cut them short and every response handler finishes.
  const waits = new Map<NodeJS.Timeout, () => void>();
  let closing = false;
  let open = 0;
  let peakOpen = 0;

  const sleep = (ms: number | undefined) =>
    new Promise<void>((done) => {
      if (!ms || ms <= 0 || closing) return done();
      const timer = setTimeout(() => {
        waits.delete(timer);
        done();
      }, ms);
      waits.set(timer, done);
    });

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/v1/models') {
        return sendJson(res, 200, {
          object: 'list',
          data: [{ id: 'scripted', object: 'model', created: unixNow(), owned_by: 'plaited-test' }],
        });
      }
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        return sendJson(res, 404, openAIError(`no route for ${req.method} ${path}`, 'invalid_request_error'));
      }
      let body: RecordedRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedRequest;
      } catch (error) {
        return sendJson(res, 400, openAIError(`request body is not JSON: ${String(error)}`, 'invalid_request_error'));
      }
      const index = requests.length;
      requests.push(body);
      requestHeaders.push(req.headers);
      requestUrls.push(req.url ?? '');
      const step = queue.shift() ?? respond?.(body, index) ?? { text: EXHAUSTED_TEXT };
      if (step.dropConnection) return void req.socket.destroy();
      open++;
      peakOpen = Math.max(peakOpen, open);
      res.once('close', () => open--);
      void (step.until ?? Promise.resolve())
        .then(() => answer(res, body, step, index))
        .catch(() => res.destroy());
    });
  });

  async function answer(res: ServerResponse, request: RecordedRequest, step: ScriptStep, index: number): Promise<void> {
    const gone = () => closing || res.destroyed || res.writableEnded;
    if (step.status !== undefined && step.status !== 200) {
      await sleep(step.delayMs);
      if (gone()) return;
      return sendJson(res, step.status, step.errorBody ?? openAIError(`scripted ${step.status}`, 'server_error'));
    }
    const reply = buildReply(request, step, index);
    if (!request.stream) {
      await sleep(step.delayMs);
      if (gone()) return;
      return sendJson(res, 200, completionBody(reply));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    await sleep(step.delayMs);
    const generated = streamChunks(reply, request.stream_options?.include_usage === true).map((chunk) => JSON.stringify(chunk));
    const finish = generated.length - (request.stream_options?.include_usage === true ? 2 : 1);
    const payloads = step.stream ?? [...generated.slice(0, finish), ...(step.rawChunks ?? []), ...generated.slice(finish)];
    for (const [position, payload] of payloads.entries()) {
      if (position > 0) await sleep(step.chunkDelayMs);
      if (position === step.holdAfter?.chunks) await step.holdAfter.until;
      if (gone()) return;
      res.write(`data: ${payload}\n\n`);
    }
    if (gone()) return;
    res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ready());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    requestHeaders,
    requestUrls,
    push: (...steps) => void queue.push(...steps),
    pending: () => queue.length,
    open: () => open,
    peakOpen: () => peakOpen,
    close: () =>
      new Promise<void>((done) => {
        closing = true;
        for (const [timer, done] of waits) {
          clearTimeout(timer);
          done();
        }
        waits.clear();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/** One scripted reply, resolved: ids, argument strings, finish reason and usage fixed. */
interface Reply {
  id: string;
  model: string;
  created: number;
  text: string | undefined;
  reasoning: string | undefined;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function buildReply(request: RecordedRequest, step: ScriptStep, index: number): Reply {
  const toolCalls = (step.toolCalls ?? []).map((call, position) => ({
    id: call.id ?? `call_${index}_${position}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }));
  const output = (step.text ?? '') + (step.reasoning ?? '') + toolCalls.map((call) => call.name + call.arguments).join('');
  const usage = step.usage ?? {
    prompt_tokens: estimateTokens(JSON.stringify(request.messages ?? [])),
    completion_tokens: estimateTokens(output),
  };
  return {
    id: `chatcmpl-scripted-${index}`,
    model: typeof request.model === 'string' ? request.model : 'scripted',
    created: unixNow(),
    text: step.text,
    reasoning: step.reasoning,
    toolCalls,
    finishReason: step.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

function completionBody(reply: Reply): unknown {
  return {
    id: reply.id,
    object: 'chat.completion',
    created: reply.created,
    model: reply.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          ...(reply.reasoning !== undefined ? { reasoning_content: reply.reasoning } : {}),
          ...(reply.toolCalls.length > 0
            ? {
                tool_calls: reply.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
          refusal: null,
        },
        logprobs: null,
        finish_reason: reply.finishReason,
      },
    ],
    usage: reply.usage,
  };
}

/**
 * The `chat.completion.chunk` sequence OpenAI sends: a role chunk, reasoning and text in
 * pieces, each tool call opened with id+name and its arguments spread over 2+ chunks, a
 * finish chunk, and usage in a final choice-less chunk when `include_usage` was asked
 * (otherwise on the finish chunk, as llama.cpp and vLLM do).
 */
function streamChunks(reply: Reply, includeUsage: boolean): unknown[] {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) => ({
    id: reply.id,
    object: 'chat.completion.chunk',
    created: reply.created,
    model: reply.model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...extra,
  });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of splitText(reply.reasoning)) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of splitText(reply.text)) chunks.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of splitInTwoOrMore(call.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  if (includeUsage) {
    chunks.push(chunk({}, reply.finishReason));
    chunks.push({ ...(chunk({}) as object), choices: [], usage: reply.usage });
  } else {
    chunks.push(chunk({}, reply.finishReason, { usage: reply.usage }));
  }
  return chunks;
}

/** Word by word (whitespace kept), and never a single chunk for a text of 2+ characters. */
function splitText(text: string | undefined): string[] {
  if (!text) return [];
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  return words.length >= 2 ? words : splitInTwoOrMore(text);
}

function splitInTwoOrMore(text: string): string[] {
  const chars = Array.from(text);
  if (chars.length < 2) return [text];
  const size = Math.max(1, Math.ceil(chars.length / 3));
  const pieces: string[] = [];
  for (let start = 0; start < chars.length; start += size) pieces.push(chars.slice(start, start + size).join(''));
  return pieces;
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

function openAIError(message: string, type: string): unknown {
  return { error: { message, type, param: null, code: null } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
