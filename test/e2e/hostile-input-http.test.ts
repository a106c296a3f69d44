import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { TEST_AUTH_HEADERS } from '../helpers/test-auth-token.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { FUZZ_MAX_MESSAGE_BYTES, fuzzProject } from '../fuzz/fuzz-targets.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';

let model: ScriptedOpenAIServer;
const clis: HttpCli[] = [];

beforeEach(async () => {
  model = await startScriptedOpenAIServer(() => ({ text: 'ok' }));
});
afterEach(async () => {
  for (const cli of clis.splice(0)) await cli.close();
  await model.close();
});

async function start(extra: string[], urlPattern: RegExp): Promise<HttpCli> {
  const cli = await startHttpCli({ cwd: fuzzProject(), args: ['--model', 'openai-compatible:scripted', '--base-url', model.url, ...extra], urlPattern });
  clis.push(cli);
  return cli;
}

function openSocket(url: string): Promise<{ socket: WebSocket; messages: Array<{ id?: unknown; result?: unknown; error?: { code: number } }>; closed: Promise<number> }> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'), { headers: TEST_AUTH_HEADERS });
  const messages: Array<{ id?: unknown }> = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as { id?: unknown }));
  const closed = new Promise<number>((done) => socket.once('close', (code) => done(code)));
  return new Promise((ready, fail) => {
    socket.once('open', () => ready({ socket, messages, closed }));
    socket.once('error', fail);
  });
}

async function answer(messages: Array<{ id?: unknown }>, id: unknown): Promise<{ id?: unknown; result?: unknown; error?: { code: number } }> {
  for (let i = 0; i < 500; i++) {
    const found = messages.find((message) => message.id === id);
    if (found) return found;
    await new Promise((tick) => setTimeout(tick, 20));
  }
  throw new Error(`no answer to ${String(id)}`);
}

describe('network faces under hostile input (the built CLI over HTTP)', () => {
  it('ACP over WebSocket: a deep id is answered, an oversized frame closes only that socket (1009), others carry on', async () => {
    const cli = await start(['--transport', 'http', '--port', '0'], /ACP over HTTP at (http:\/\/\S+\/acp)/);
    const first = await openSocket(cli.url);
    const second = await openSocket(cli.url);
    for (const { socket } of [first, second]) socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    await answer(first.messages, 'init');
    await answer(second.messages, 'init');
    first.socket.send(`{"jsonrpc":"2.0","id":"deep","method":"session/list","params":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`);
    expect((await answer(first.messages, 'deep')).error?.code).toBe(-32600);
    first.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'session/list', params: { x: 'y'.repeat(FUZZ_MAX_MESSAGE_BYTES + 10) } }));
    expect(await first.closed).toBe(1009);
    second.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'list', method: 'session/list', params: {} }));
    expect((await answer(second.messages, 'list')).result).toBeDefined();
    second.socket.close();
  });

  it('ACP over HTTP POST: an oversized body is refused with 413 and a JSON-RPC error, and the server keeps serving', async () => {
    const cli = await start(['--transport', 'http', '--port', '0'], /ACP over HTTP at (http:\/\/\S+\/acp)/);
    const big = await fetch(cli.url, { method: 'POST', headers: { ...TEST_AUTH_HEADERS, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { x: 'y'.repeat(FUZZ_MAX_MESSAGE_BYTES + 10) } }) });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32600, data: { maxMessageBytes: FUZZ_MAX_MESSAGE_BYTES } } });
    const socket = await openSocket(cli.url);
    socket.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    expect((await answer(socket.messages, 'init')).result).toBeDefined();
    socket.socket.close();
  });

  it('ACP over HTTP POST: a batch gets one -32600 per request id and none for its notifications, before and after initialize', async () => {
    const cli = await start(['--transport', 'http', '--port', '0'], /ACP over HTTP at (http:\/\/\S+\/acp)/);
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(cli.url, { method: 'POST', headers: { ...TEST_AUTH_HEADERS, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
    const notification = { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'x' } };
    const early = await post(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }, notification, { jsonrpc: '2.0', id: 'two', method: 'session/list', params: {} }]));
    const earlyReplies = (await early.json()) as Array<{ id: unknown; error: { code: number; message: string } }>;
    expect(earlyReplies.map((reply) => [reply.id, reply.error.code])).toEqual([[1, -32600], ['two', -32600]]);
    expect(earlyReplies[0]!.error.message).toMatch(/batches are not supported; send each message on its own/);
    const init = await post(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    expect(init.status).toBe(200);
    const connection = { 'acp-connection-id': init.headers.get('acp-connection-id')! };
    const later = await post(JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'session/list', params: {} }, { jsonrpc: '2.0', id: 'b', method: 'session/list', params: {} }]), connection);
    expect(((await later.json()) as Array<{ id: unknown }>).map((reply) => reply.id)).toEqual(['a', 'b']);
    const onlyNotifications = await post(JSON.stringify([notification]), connection);
    expect(onlyNotifications.status).toBe(202);
    expect(await onlyNotifications.text()).toBe('');
    const empty = await post('[]', connection);
    expect(await empty.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('ACP over WebSocket: a request before initialize gets an error with its id and the socket stays open; a batch gets one error per id', async () => {
    const cli = await start(['--transport', 'http', '--port', '0'], /ACP over HTTP at (http:\/\/\S+\/acp)/);
    const socket = await openSocket(cli.url);
    socket.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'early', method: 'session/list', params: {} }));
    const early = await answer(socket.messages, 'early');
    expect(early.error?.code).toBe(-32600);
    socket.socket.send(JSON.stringify([{ jsonrpc: '2.0', id: 'b1', method: 'session/list', params: {} }, { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'x' } }, { jsonrpc: '2.0', id: 7, method: 'session/list', params: {} }]));
    socket.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    expect((await answer(socket.messages, 'init')).result).toBeDefined();
    // The batch's answer is one frame, an array with an error per request.
    const batchReply = socket.messages.find((message) => Array.isArray(message)) as unknown as Array<{ id: unknown; error: { code: number } }>;
    expect(batchReply.map((reply) => [reply.id, reply.error.code])).toEqual([['b1', -32600], [7, -32600]]);
    socket.socket.send(JSON.stringify([{ jsonrpc: '2.0', id: 'after', method: 'session/list', params: {} }]));
    socket.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'list', method: 'session/list', params: {} }));
    expect((await answer(socket.messages, 'list')).result).toBeDefined();
    expect(socket.messages.some((message) => Array.isArray(message) && (message as Array<{ id: unknown }>)[0]?.id === 'after')).toBe(true);
    socket.socket.close();
    expect(await socket.closed).toBe(1005);
  });

  it('MCP over HTTP: oversized, deep and malformed bodies get JSON-RPC errors with the request id', async () => {
    const cli = await start(['--adapter', 'mcp', '--transport', 'http', '--port', '0'], /MCP over streamable HTTP at (http:\/\/\S+\/mcp)/);
    const post = (body: string) =>
      fetch(cli.url, { method: 'POST', headers: { ...TEST_AUTH_HEADERS, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
    const big = await post(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"${'y'.repeat(FUZZ_MAX_MESSAGE_BYTES)}"}}`);
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ id: 'big', error: { code: -32600 } });
    const deep = await post(`{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"x":${'['.repeat(3000)}${']'.repeat(3000)}}}`);
    expect(await deep.json()).toMatchObject({ id: 'deep', error: { code: -32600 } });
    const envelope = await post('{"jsonrpc":"1.0","id":"v1","method":"ping"}');
    expect(await envelope.json()).toMatchObject({ id: 'v1', error: { code: -32600 } });
    const init = await post(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }));
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
  });
});
