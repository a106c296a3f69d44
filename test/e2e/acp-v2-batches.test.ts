import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { TEST_AUTH_HEADERS } from '../helpers/test-auth-token.js';
import { startRawCli, type RawJsonRpcCli, type RawMessage } from '../helpers/raw-json-rpc-cli.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { waitFor } from '../helpers/wait-for.js';

let model: ScriptedOpenAIServer;
const clis: RawJsonRpcCli[] = [];
const servers: HttpCli[] = [];
beforeEach(async () => {
  model = await startScriptedOpenAIServer();
});
afterEach(async () => {
  for (const cli of clis.splice(0)) {
    await cli.close();
    expect(cli.violations).toEqual([]);
  }
  for (const server of servers.splice(0)) await server.close();
  await model.close();
});

function start(): { cli: RawJsonRpcCli; cwd: string } {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-v2-batch-'));
  const cli = startRawCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', model.url] });
  clis.push(cli);
  return { cli, cwd };
}

const list = (id: string | number) => ({ jsonrpc: '2.0', id, method: 'session/list', params: {} });
const cancel = { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'no-such-session' } };
/** The array answers the CLI wrote, in order. */
const arrays = (cli: RawJsonRpcCli) => cli.messages.filter((message): message is RawMessage[] => Array.isArray(message));

describe('ACP v2 draft over stdio: JSON-RPC batches are answered as JSON-RPC 2.0 says', () => {
  it('one array with an answer per request, none for notifications; bad entries answered in place; an empty batch is one -32600', async () => {
    const { cli, cwd } = start();
    const init = await cli.request('initialize', { protocolVersion: v2.PROTOCOL_VERSION, info: { name: 'batch-test', version: '1' }, capabilities: {} });
    expect(init.error).toBeUndefined();
    const created = await cli.request('session/new', { cwd, mcpServers: [] });
    const sessionId = (created.result as { sessionId: string }).sessionId;

    await cli.write(`${JSON.stringify([list('a'), cancel, list('b')])}\n`);
    await waitFor(() => arrays(cli).length === 1, 20_000, 'the batch answer');
    const [answer] = arrays(cli);
    expect(answer!.map((message) => message.id)).toEqual(['a', 'b']);
    for (const message of answer!) expect((message.result as { sessions: Array<{ sessionId: string }> }).sessions.map((s) => s.sessionId)).toEqual([sessionId]);

    await cli.write(`${JSON.stringify([{ jsonrpc: '2.0', id: 'bad', method: 5 }, 7, list('c'), list('c')])}\n`);
    await waitFor(() => arrays(cli).length === 2, 20_000, 'the second batch answer');
    const mixed = arrays(cli)[1]!;
    expect(mixed.map((message) => [message.id, message.error?.code ?? 'result'])).toEqual([
      ['bad', -32600],
      [null, -32600],
      ['c', 'result'],
      ['c', -32600],
    ]);

    // Only notifications: no answer at all (the next request's answer is the next answer written).
    const before = cli.messages.length;
    await cli.write(`${JSON.stringify([cancel, cancel])}\n`);
    const next = await cli.request('session/list', {}, 'after');
    expect(next.result).toBeDefined();
    expect(answersSince(cli, before)).toEqual([next]);

    expect(await answerTo(cli, '[]')).toMatchObject({ id: null, error: { code: -32600 } });
    const deep = `[{"jsonrpc":"2.0","id":"deep","method":"session/list","params":{"x":${'['.repeat(200)}${']'.repeat(200)}}}]`;
    expect(await answerTo(cli, deep)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/deeper than 128/) } });
  });

  it('v1 keeps refusing a batch, with one -32600 per request id', async () => {
    const { cli } = start();
    expect((await cli.request('initialize', { protocolVersion: 1, clientCapabilities: {} })).result).toBeDefined();
    await cli.write(`${JSON.stringify([list('x'), cancel, list('y')])}\n`);
    await waitFor(() => arrays(cli).length === 1, 20_000, 'the refusal');
    expect(arrays(cli)[0]!.map((message) => [message.id, message.error?.code])).toEqual([
      ['x', -32600],
      ['y', -32600],
    ]);
  });
});

describe('ACP v2 draft over WebSocket: JSON-RPC batches are answered as JSON-RPC 2.0 says', () => {
  it('one array frame with an answer per request, none for notifications; v1 on another socket keeps refusing per id', async () => {
    const server = await startHttpCli({
      cwd: mkdtempSync(join(tmpdir(), 'plaited-v2-batch-ws-')),
      args: ['--model', 'openai-compatible:scripted', '--base-url', model.url, '--transport', 'http'],
      urlPattern: /ACP over HTTP at (http:\/\/\S+\/acp)/,
    });
    servers.push(server);
    const draft = await openSocket(server.url);
    draft.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: v2.PROTOCOL_VERSION, info: { name: 'batch-test', version: '1' }, capabilities: {} } });
    await waitFor(() => draft.frames.some((frame) => (frame as RawMessage).id === 'init'), 20_000, 'the v2 initialize answer');
    draft.send([list('a'), cancel, list('b')]);
    draft.send([cancel]);
    draft.send(list('single'));
    await waitFor(() => draft.frames.some((frame) => (frame as RawMessage).id === 'single'), 20_000, 'the single answer');
    await waitFor(() => draft.frames.some(Array.isArray), 20_000, 'the batch answer');
    const batches = draft.frames.filter((frame): frame is RawMessage[] => Array.isArray(frame));
    expect(batches).toHaveLength(1);
    expect(batches[0]!.map((message) => [message.id, message.result !== undefined])).toEqual([
      ['a', true],
      ['b', true],
    ]);

    const stable = await openSocket(server.url);
    stable.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    await waitFor(() => stable.frames.some((frame) => (frame as RawMessage).id === 'init'), 20_000, 'the v1 initialize answer');
    stable.send([list('x'), list('y')]);
    await waitFor(() => stable.frames.some(Array.isArray), 20_000, 'the v1 refusal');
    const refusal = stable.frames.find((frame): frame is RawMessage[] => Array.isArray(frame))!;
    expect(refusal.map((message) => [message.id, message.error?.code])).toEqual([
      ['x', -32600],
      ['y', -32600],
    ]);
    draft.socket.close();
    stable.socket.close();
  });
});

describe('ACP v2 draft over HTTP: a POSTed batch is answered in the POST response as JSON-RPC 2.0 says', () => {
  it('one array with an answer per request, none for notifications, bad entries in place, an empty batch one -32600; v1 keeps refusing', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-v2-batch-http-'));
    const server = await startHttpCli({
      cwd,
      args: ['--model', 'openai-compatible:scripted', '--base-url', model.url, '--transport', 'http'],
      urlPattern: /ACP over HTTP at (http:\/\/\S+\/acp)/,
    });
    servers.push(server);
    const post = (body: unknown, connection?: string) =>
      fetch(server.url, {
        method: 'POST',
        headers: { ...TEST_AUTH_HEADERS, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(connection ? { 'acp-connection-id': connection } : {}) },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const init = await post({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: v2.PROTOCOL_VERSION, info: { name: 'batch-test', version: '1' }, capabilities: {} } });
    expect(init.status).toBe(200);
    const draft = init.headers.get('acp-connection-id')!;
    const newSession = { jsonrpc: '2.0', id: 'new', method: 'session/new', params: { cwd, mcpServers: [] } };

    const answered = await post([newSession, cancel, list('a')], draft);
    expect(answered.status).toBe(200);
    const answer = (await answered.json()) as RawMessage[];
    expect(answer.map((message) => [message.id, message.error === undefined])).toEqual([
      ['new', true],
      ['a', true],
    ]);
    const sessionId = (answer[0]!.result as { sessionId: string }).sessionId;
    const listed = (await (await post([list('after')], draft)).json()) as RawMessage[];
    expect((listed[0]!.result as { sessions: Array<{ sessionId: string }> }).sessions.map((session) => session.sessionId)).toEqual([sessionId]);

    const mixed = (await (await post([{ jsonrpc: '2.0', id: 'bad', method: 5 }, 7, list('c'), list('c')], draft)).json()) as RawMessage[];
    expect(mixed.map((message) => [message.id, message.error?.code ?? 'result'])).toEqual([
      ['bad', -32600],
      [null, -32600],
      ['c', 'result'],
      ['c', -32600],
    ]);
    const onlyNotifications = await post([cancel, cancel], draft);
    expect(onlyNotifications.status).toBe(202);
    expect(await onlyNotifications.text()).toBe('');
    expect(await (await post('[]', draft)).json()).toMatchObject({ id: null, error: { code: -32600 } });
    const deep = `[{"jsonrpc":"2.0","id":"deep","method":"session/list","params":{"x":${'['.repeat(200)}${']'.repeat(200)}}}]`;
    expect(await (await post(deep, draft)).json()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/deeper than 128/) } });

    const stable = await post({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    const refusal = (await (await post([list('x'), list('y')], stable.headers.get('acp-connection-id')!)).json()) as RawMessage[];
    expect(refusal.map((message) => [message.id, message.error?.code])).toEqual([
      ['x', -32600],
      ['y', -32600],
    ]);
  });
});

async function openSocket(url: string): Promise<{ socket: WebSocket; frames: Array<RawMessage | RawMessage[]>; send(message: unknown): void }> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'), { headers: TEST_AUTH_HEADERS });
  const frames: Array<RawMessage | RawMessage[]> = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as RawMessage | RawMessage[]));
  await new Promise((ready, fail) => {
    socket.once('open', ready);
    socket.once('error', fail);
  });
  return { socket, frames, send: (message) => socket.send(JSON.stringify(message)) };
}

/** What the agent wrote after `count` that answers something: a notification (a late `session/update`) may come any time. */
const answersSince = (cli: RawJsonRpcCli, count: number) =>
  cli.messages.slice(count).filter((message) => Array.isArray(message) || !(typeof message.method === 'string' && message.id === undefined));

/** Writes `line` and resolves with the next answer the CLI writes. */
async function answerTo(cli: RawJsonRpcCli, line: string): Promise<RawMessage | RawMessage[]> {
  const count = cli.messages.length;
  await cli.write(`${line}\n`);
  await waitFor(() => answersSince(cli, count).length > 0, 20_000, `an answer to ${line.slice(0, 40)}`);
  return answersSince(cli, count)[0]!;
}
