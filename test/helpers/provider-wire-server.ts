import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A local server on 127.0.0.1 that speaks the native providers' real wire formats, replaying
 * streams recorded from the real APIs (test/fixtures/provider-streams, from the AI SDK's own
 * test fixtures; see its README for provenance and licence):
 *  - Anthropic Messages:  `POST /v1/messages` (SSE `event:`/`data:` pairs)
 *  - OpenAI Responses:    `POST /v1/responses` (SSE `event:`/`data:` pairs)
 *  - Gemini:              `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` (SSE `data:`)
 * Replies are queued in order; every request body is recorded so tests can assert what was sent.
 */

export type ProviderWire = 'anthropic' | 'openai' | 'google';

/** Where each provider's key is read from, and a model of each that the recordings came from. */
export const WIRE_KEY_ENV = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY', google: 'GOOGLE_GENERATIVE_AI_API_KEY' } as const;
export const WIRE_MODELS = { anthropic: 'claude-sonnet-4-5', openai: 'gpt-5-mini', google: 'gemini-2.5-flash' } as const;

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/provider-streams');

/** The recorded streams, by the wire they belong to. */
export const RECORDED = {
  anthropic: {
    text: 'anthropic-text.chunks.txt',
    thinking: 'anthropic-clear-thinking.1.chunks.txt',
    toolUse: 'anthropic-json-tool.1.chunks.txt',
  },
  openai: {
    text: 'openai-phase.1.chunks.txt',
    toolCall: 'issue-19493-gpt-5.1-tool-call.chunks.txt',
    /** Only the reasoning item of a recorded stream: put it between another stream's start and its output. */
    reasoning: 'openai-reasoning-encrypted-content.1.excerpt.chunks.txt',
  },
  google: {
    text: 'google-text.chunks.txt',
    toolCall: 'google-tool-call.chunks.txt',
  },
} as const;

export interface WireToolCall {
  name: string;
  input: Record<string, unknown>;
}

export type WireReply =
  | {
      wire: ProviderWire;
      /** Recorded events, in order: whole fixture files (`RECORDED.*`), or single events. */
      events: Array<string | Record<string, unknown>>;
      /** Renames the recorded tool call and replaces its arguments (the recorded tools are not this agent's). */
      toolCall?: WireToolCall;
      /** Sends this many events, then destroys the connection (a stream cut mid-way). */
      cutAfter?: number;
      /** Holds the stream after its first event until this settles (cancel mid-stream). */
      holdAfterFirst?: Promise<unknown>;
    }
  | { wire: ProviderWire; status: number; body: unknown; headers?: Record<string, string> };

export interface WireRequest {
  wire: ProviderWire;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface ProviderWireServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The base URL each provider's SDK is given (`--base-url`). */
  baseURL(wire: ProviderWire): string;
  requests: WireRequest[];
  push(...replies: WireReply[]): void;
  close(): Promise<void>;
}

/** Loads a fixture file's events (one JSON object a line). */
export function recordedEvents(file: string): Array<Record<string, unknown>> {
  return readFileSync(join(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export async function startProviderWireServer(replies: WireReply[] = []): Promise<ProviderWireServer> {
  const queue = [...replies];
  const requests: WireRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      const path = request.url ?? '';
      const wire = wireOf(request.method ?? '', path);
      if (!wire) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `no such route: ${request.method} ${path}` } }));
        return;
      }
      requests.push({ wire, path, headers: request.headers, body: JSON.parse(raw || '{}') as Record<string, unknown> });
      const reply = queue.shift();
      if (!reply || reply.wire !== wire) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `(script exhausted or wrong wire: got a ${wire} request, next reply is ${reply?.wire})` } }));
        return;
      }
      void answer(reply, response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseURL: (wire) => (wire === 'google' ? `${url}/v1beta` : `${url}/v1`),
    requests,
    push: (...more) => void queue.push(...more),
    close: () =>
      new Promise<void>((closed) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => closed());
      }),
  };
}

function wireOf(method: string, path: string): ProviderWire | undefined {
  if (method !== 'POST') return undefined;
  if (path === '/v1/messages') return 'anthropic';
  if (path === '/v1/responses') return 'openai';
  if (/^\/v1beta\/models\/[^/:]+:streamGenerateContent\?alt=sse$/.test(path)) return 'google';
  return undefined;
}

async function answer(reply: WireReply, response: ServerResponse): Promise<void> {
  if ('status' in reply) {
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(JSON.stringify(reply.body));
    return;
  }
  let events = reply.events.flatMap((item) => (typeof item === 'string' ? recordedEvents(item) : [item]));
  if (reply.toolCall) events = retool(reply.wire, events, reply.toolCall);
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const [index, event] of events.entries()) {
    if (reply.cutAfter !== undefined && index >= reply.cutAfter) {
      // Everything before the cut has reached the socket: the client sees a stream that stops, not a refused request.
      response.socket?.destroy();
      return;
    }
    const type = reply.wire === 'google' ? undefined : (event.type as string | undefined);
    await new Promise<void>((written) => response.write(`${type ? `event: ${type}\n` : ''}data: ${JSON.stringify(event)}\n\n`, () => written()));
    if (index === 0 && reply.holdAfterFirst) await reply.holdAfterFirst.catch(() => undefined);
    if (response.destroyed) return;
  }
  response.end();
}

/** The recorded tool call, renamed to one of this agent's tools with the given arguments. */
function retool(wire: ProviderWire, events: Array<Record<string, unknown>>, call: WireToolCall): Array<Record<string, unknown>> {
  const args = JSON.stringify(call.input);
  const out: Array<Record<string, unknown>> = [];
  let argumentsSent = false;
  for (const original of events) {
    const event = structuredClone(original) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (wire === 'anthropic') {
      if (event.type === 'content_block_start' && event.content_block?.type === 'tool_use') event.content_block.name = call.name;
      if (event.type === 'content_block_delta' && event.delta?.type === 'input_json_delta') {
        if (argumentsSent) continue;
        if (event.delta.partial_json === '') {
          out.push(event);
          continue;
        }
        event.delta.partial_json = args;
        argumentsSent = true;
      }
    } else if (wire === 'openai') {
      const items = [event.item, ...(Array.isArray(event.response?.output) ? event.response.output : [])];
      for (const item of items) {
        if (item?.type === 'function_call') {
          item.name = call.name;
          if (item.arguments !== '') item.arguments = args;
        }
      }
      if (event.type === 'response.function_call_arguments.delta') {
        if (argumentsSent) continue;
        event.delta = args;
        argumentsSent = true;
      }
      if (event.type === 'response.function_call_arguments.done') event.arguments = args;
    } else {
      for (const candidate of event.candidates ?? []) {
        for (const part of candidate.content?.parts ?? []) {
          if (part.functionCall) part.functionCall = { name: call.name, args: call.input };
        }
      }
    }
    out.push(event);
  }
  return out;
}

/** Error replies in each API's documented error shape. */
export const wireErrors = {
  rateLimited(wire: ProviderWire, retryAfterSeconds: number): WireReply {
    const headers = { 'retry-after': String(retryAfterSeconds) };
    if (wire === 'anthropic') return { wire, status: 429, headers, body: anthropicError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit') };
    if (wire === 'openai') return { wire, status: 429, headers, body: openaiError('Rate limit reached for requests', 'requests', 'rate_limit_exceeded') };
    return { wire, status: 429, headers, body: googleError(429, 'Resource has been exhausted (e.g. check quota).', 'RESOURCE_EXHAUSTED') };
  },
  unauthorized(wire: ProviderWire): WireReply {
    if (wire === 'anthropic') return { wire, status: 401, body: anthropicError('authentication_error', 'invalid x-api-key') };
    if (wire === 'openai') return { wire, status: 401, body: openaiError('Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_request_error', 'invalid_api_key') };
    return { wire, status: 400, body: googleError(400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT') };
  },
  modelNotFound(wire: ProviderWire, model: string): WireReply {
    if (wire === 'anthropic') return { wire, status: 404, body: anthropicError('not_found_error', `model: ${model}`) };
    if (wire === 'openai') return { wire, status: 404, body: openaiError(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found') };
    return { wire, status: 404, body: googleError(404, `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`, 'NOT_FOUND') };
  },
};

function anthropicError(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}

function openaiError(message: string, type: string, code: string) {
  return { error: { message, type, param: null, code } };
}

function googleError(code: number, message: string, status: string) {
  return { error: { code, message, status } };
}
