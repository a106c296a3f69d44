import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type RecordedRequest, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { connectAcpHttp, initializeHttp, textOf, type AcpHttpClient, type AcpHttpClientOptions } from '../adapters/acp/acp-http-client.js';

const URL_LINE = /ACP over HTTP at (http:\/\/\S+\/acp)/;
let model: ScriptedOpenAIServer;
let cli: HttpCli;
const clients: AcpHttpClient[] = [];

/** Unscripted requests are answered with an echo of the last user message, so concurrent turns can be told apart. */
function echo(request: RecordedRequest) {
  const last = [...request.messages].reverse().find((message) => message.role === 'user');
  const content = last?.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '';
  return { text: `echo: ${text}` };
}

function project(config?: object): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-acp-http-'));
  // The CLI opens <its cwd>/.plaited/index.db, which needs the folder to exist.
  mkdirSync(join(cwd, '.plaited'));
  if (config) writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify(config));
  return cwd;
}

beforeAll(async () => {
  model = await startScriptedOpenAIServer(echo);
  cli = await startHttpCli({ cwd: project(), args: ['--model', 'openai-compatible:scripted', '--base-url', model.url], urlPattern: URL_LINE });
});
afterAll(async () => {
  await cli?.close();
  await model?.close();
});
afterEach(() => {
  for (const client of clients.splice(0)) {
    client.close();
    expect(client.validator.errors, client.validator.errors.join('\n')).toEqual([]);
  }
});

function connect(options: AcpHttpClientOptions = {}, url = cli.url): AcpHttpClient {
  const client = connectAcpHttp(url, options);
  clients.push(client);
  return client;
}

async function openSession(client: AcpHttpClient, cwd = project()) {
  await initializeHttp(client);
  const session = await client.agent.request('session/new', { cwd, mcpServers: [] });
  return { cwd, sessionId: session.sessionId };
}

async function until(done: () => boolean, describe: () => string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms: ${describe()}`);
    await new Promise((tick) => setTimeout(tick, 20));
  }
}

const prompt = (client: AcpHttpClient, sessionId: string, text: string) =>
  client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });

describe('ACP over HTTP and WebSocket (the built CLI, --transport http)', () => {
  it('listens on 127.0.0.1 at /acp and answers initialize with the stdio capabilities', async () => {
    expect(cli.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/acp$/);
    const client = connect();
    const init = await initializeHttp(client);
    expect(init.protocolVersion).toBe(acp.PROTOCOL_VERSION);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    const foreign = await fetch(cli.url, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://evil.example.com' }, body: '{}' });
    expect(foreign.status).toBe(403);
  });

  it('streams a prompt turn', async () => {
    const client = connect();
    const { sessionId } = await openSession(client);
    model.push({ text: 'Hello over HTTP.' });
    const response = await prompt(client, sessionId, 'hi');
    expect(response.stopReason).toBe('end_turn');
    expect(textOf(client, sessionId)).toBe('Hello over HTTP.');
  });

  it('runs a tool call and reports its updates', async () => {
    const client = connect();
    const { cwd, sessionId } = await openSession(client);
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\n');
    model.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'Read it.' });
    expect((await prompt(client, sessionId, 'read notes')).stopReason).toBe('end_turn');
    const tools = client.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate.startsWith('tool_call'));
    expect(tools[0]!.update).toMatchObject({ sessionUpdate: 'tool_call', kind: 'read' });
    expect(tools.some((n) => (n.update as acp.ToolCallUpdate).status === 'completed')).toBe(true);
  });

  it('asks the client for permission before a write, and applies the answer', async () => {
    const client = connect({ onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow-once' } }) });
    const { cwd, sessionId } = await openSession(client);
    model.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'written' } }] }, { text: 'Done.' });
    expect((await prompt(client, sessionId, 'write it')).stopReason).toBe('end_turn');
    expect(client.permissions).toHaveLength(1);
    expect(client.permissions[0]!.toolCall.kind).toBe('edit');
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8')).toBe('written');
  });

  it('cancels a running turn', async () => {
    const client = connect();
    const { sessionId } = await openSession(client);
    const before = model.requests.length;
    model.push({ text: 'too late', delayMs: 20_000 });
    const running = prompt(client, sessionId, 'slow');
    while (model.requests.length === before) await new Promise((tick) => setTimeout(tick, 20));
    await client.agent.notify('session/cancel', { sessionId });
    expect((await running).stopReason).toBe('cancelled');
  });

  it('a client that reconnects continues its session with session/load', async () => {
    const first = connect();
    const { cwd, sessionId } = await openSession(first);
    model.push({ text: 'Remember the number 42.' });
    await prompt(first, sessionId, 'remember');
    first.close(); // the connection drops

    const second = connect();
    const init = await initializeHttp(second);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    // The history is replayed to the new connection. Over HTTP the replay travels on the
    // session's stream and the response on the connection's, so the two may arrive in either order.
    await until(() => textOf(second, sessionId) === 'Remember the number 42.', () => `replayed text: ${JSON.stringify(textOf(second, sessionId))}`);
    const replayedUser = second.updates.find((n) => n.update.sessionUpdate === 'user_message_chunk');
    expect(replayedUser).toBeDefined();
    model.push({ text: 'It was 42.' });
    expect((await prompt(second, sessionId, 'what number?')).stopReason).toBe('end_turn');
    expect(JSON.stringify(model.requests[model.requests.length - 1]!.messages)).toContain('Remember the number 42.');
  });

  it('serves the same agent over WebSocket on the same path', async () => {
    const client = connect({ transport: 'websocket' });
    const { sessionId } = await openSession(client);
    model.push({ text: 'Hello over WebSocket.' });
    expect((await prompt(client, sessionId, 'hi')).stopReason).toBe('end_turn');
    expect(textOf(client, sessionId)).toBe('Hello over WebSocket.');
  });

  it('20 clients at once each complete their own scripted turn', async () => {
    const cwd = project();
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const client = connect();
        const { sessionId } = await openSession(client, cwd);
        const response = await prompt(client, sessionId, `client ${index}`);
        return { index, stopReason: response.stopReason, text: textOf(client, sessionId) };
      }),
    );
    for (const result of results) {
      expect(result.stopReason).toBe('end_turn');
      expect(result.text).toBe(`echo: client ${result.index}`);
    }
  }, 120_000); // 2 shared cores: 20 sessions open their stores and extensions side by side
});

describe('ACP over HTTP: idle connections', () => {
  let idleCli: HttpCli | undefined;
  afterAll(async () => {
    await idleCli?.close();
  });

  it('closes a connection idle for adapters.acp.idleTimeoutMs; a new connection still works', async () => {
    // 1 s: long enough that a loaded machine's initialize and session/new never look idle (300 ms failed at load 25).
    const cwd = project({ adapters: { acp: { idleTimeoutMs: 1_000 } } });
    // Debug logging: the CLI says when it closes an idle connection, which is the event to wait for.
    const args = ['--model', 'openai-compatible:scripted', '--base-url', model.url, '--log-level', 'debug'];
    const cliHandle = (idleCli = await startHttpCli({ cwd, args, urlPattern: URL_LINE }));
    const client = connect({}, cliHandle.url);
    const { sessionId } = await openSession(client, cwd);
    await until(() => cliHandle.stderr().includes('closing an idle ACP connection'), () => cliHandle.stderr().slice(-2000));
    await expect(client.agent.request('session/list', {})).rejects.toThrow();
    const fresh = connect({}, cliHandle.url);
    await initializeHttp(fresh);
    const listed = await fresh.agent.request('session/list', { cwd });
    expect(listed.sessions.map((session) => session.sessionId)).toContain(sessionId);
  });
});
