import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { WebSocket } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/acp-cli.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { TEST_AUTH_TOKEN } from '../helpers/test-auth-token.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { connectAcpHttp, initializeHttp, type AcpHttpClient, type AcpHttpClientOptions } from '../adapters/acp/acp-http-client.js';

const ACP_URL = /ACP over HTTP at (http:\/\/\S+\/acp)/;
const MCP_URL = /MCP over streamable HTTP at (http:\/\/\S+\/mcp)/;
const ALICE = 'alice-token-0123456789abcdefghij';
let model: ScriptedOpenAIServer;
const clis: HttpCli[] = [];
const clients: AcpHttpClient[] = [];

/** A POST whose only credential is the WebSocket bearer subprotocol header. */
function postWithSubprotocolOnly(url: string, params: object): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'sec-websocket-protocol': `acp, bearer.${TEST_AUTH_TOKEN}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params }),
  });
}

/** A project whose config names a second principal, alice, with her own token. */
function project(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-auth-'));
  mkdirSync(join(cwd, '.plaited'));
  writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ server: { auth: { principals: { alice: ALICE } } } }));
  return cwd;
}

async function start(cwd: string, args: string[] = [], env: Record<string, string | undefined> = {}, urlPattern = ACP_URL): Promise<HttpCli> {
  const cli = await startHttpCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', model.url, ...args], urlPattern, env });
  clis.push(cli);
  return cli;
}

function connect(url: string, options: AcpHttpClientOptions = {}): AcpHttpClient {
  const client = connectAcpHttp(url, options);
  clients.push(client);
  return client;
}

async function failure(request: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await request;
  } catch (error) {
    return error as { code: number; message: string; data?: unknown };
  }
  throw new Error('the request succeeded');
}

beforeAll(async () => {
  model = await startScriptedOpenAIServer(() => ({ text: 'a secret answer' }));
});
afterEach(async () => {
  for (const client of clients.splice(0)) {
    client.close();
    expect(client.validator.errors, client.validator.errors.join('\n')).toEqual([]);
  }
});
afterAll(async () => {
  for (const cli of clis) await cli.close();
  await model?.close();
});

describe('network auth: ACP over HTTP and WebSocket', () => {
  let cli: HttpCli;
  let cwd: string;
  beforeAll(async () => {
    cwd = project();
    cli = await start(cwd);
  });

  it('refuses a request without a token, or with a wrong one, with 401 and a bearer challenge', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${TEST_AUTH_TOKEN}`, `Bearer ${TEST_AUTH_TOKEN}x`]) {
      const response = await fetch(cli.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
        body,
      });
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const error = ((await response.json()) as { error: { code: number; message: string } }).error;
      expect(error.code).toBe(-32000);
      expect(error.message).toMatch(/Unauthorized/);
      // Where the token comes from, without advising the flag every local user can read in `ps`.
      expect(error.message).toContain('--auth-token-file');
      expect(error.message).not.toContain('--auth-token /');
    }
  });

  it('refuses a WebSocket upgrade without a token, and accepts the bearer subprotocol browsers can send', async () => {
    const refused = await new Promise<number>((done) => {
      const socket = new WebSocket(cli.url.replace(/^http/, 'ws'));
      socket.on('unexpected-response', (_request, response) => done(response.statusCode ?? 0));
      socket.on('open', () => done(101));
      socket.on('error', () => undefined);
    });
    expect(refused).toBe(401);

    const browserLike = connect(cli.url, { transport: 'websocket', token: null, protocols: ['acp', `bearer.${TEST_AUTH_TOKEN}`] });
    const init = await initializeHttp(browserLike);
    expect(init.protocolVersion).toBe(acp.PROTOCOL_VERSION);
  });

  it('does not take the bearer subprotocol header on a plain HTTP request: only a WebSocket upgrade may carry it', async () => {
    expect((await postWithSubprotocolOnly(cli.url, { protocolVersion: 1, clientCapabilities: {} })).status).toBe(401);
  });

  it("scopes sessions to their principal: another principal's session is not found, exactly like an unknown one", async () => {
    const owner = connect(cli.url);
    await initializeHttp(owner);
    const { sessionId } = await owner.agent.request('session/new', { cwd, mcpServers: [] });
    await owner.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'tell me a secret' }] });

    for (const transport of ['http', 'websocket'] as const) {
      const alice = connect(cli.url, { transport, token: ALICE });
      await initializeHttp(alice);
      const listed = await alice.agent.request('session/list', {});
      expect(listed.sessions.map((session) => session.sessionId)).not.toContain(sessionId);
      const unknown = crypto.randomUUID();
      for (const [name, call] of [
        ['load', (id: string) => alice.agent.request('session/load', { sessionId: id, cwd, mcpServers: [] })],
        ['prompt', (id: string) => alice.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'and to me?' }] })],
        ['set_mode', (id: string) => alice.agent.request('session/set_mode', { sessionId: id, modeId: 'accept-edits' })],
      ] as const) {
        const theirs = await failure(call(sessionId));
        const none = await failure(call(unknown));
        expect({ code: theirs.code, message: theirs.message }, name).toEqual({ code: none.code, message: none.message });
        expect(theirs.code, name).toBe(-32002);
      }
      await alice.agent.notify('session/cancel', { sessionId });
      expect(alice.updates.filter((update) => update.sessionId === sessionId)).toEqual([]);

      // Alice's own sessions work as usual, and are hers alone.
      const own = await alice.agent.request('session/new', { cwd, mcpServers: [] });
      const answer = await alice.agent.request('session/prompt', { sessionId: own.sessionId, prompt: [{ type: 'text', text: 'hello' }] });
      expect(answer.stopReason).toBe('end_turn');
      const ownerList = await owner.agent.request('session/list', {});
      expect(ownerList.sessions.map((session) => session.sessionId)).not.toContain(own.sessionId);
    }

    // The owner, reconnecting with the same token, still lists and loads it.
    const again = connect(cli.url, { transport: 'websocket' });
    await initializeHttp(again);
    expect((await again.agent.request('session/list', {})).sessions.map((session) => session.sessionId)).toContain(sessionId);
    await again.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(again.updates.some((update) => update.sessionId === sessionId && update.update.sessionUpdate === 'agent_message_chunk')).toBe(true);
  });

  it("does not let another principal use a connection it did not open (the connection id alone is not enough)", async () => {
    const owner = await fetch(cli.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TEST_AUTH_TOKEN}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }),
    });
    expect(owner.status).toBe(200);
    const connectionId = owner.headers.get('acp-connection-id');
    expect(connectionId).toBeTruthy();
    await owner.body?.cancel();
    const hijack = await fetch(cli.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${ALICE}`, 'acp-connection-id': connectionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/list', params: {} }),
    });
    expect(hijack.status).toBeGreaterThanOrEqual(400);
    await hijack.body?.cancel();
  });
});

describe('network auth: start-up', () => {
  it('generates a token when none is given, prints it to stderr, and accepts only it', async () => {
    const cli = await start(project(), [], { PLAITED_AUTH_TOKEN: undefined });
    const token = /auth token \(generated\): (\S+)/.exec(cli.stderr())?.[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const withIt = connect(cli.url, { token: token! });
    expect((await initializeHttp(withIt)).protocolVersion).toBe(acp.PROTOCOL_VERSION);
    const response = await fetch(cli.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_AUTH_TOKEN}` }, body: '{}' });
    expect(response.status).toBe(401);
  });

  // One start with --auth-token serves both claims about it (what its start logs, and which token it takes).
  describe('with --auth-token', () => {
    const flag = 'flag-token-0123456789abcdefghij';
    let cli: HttpCli;
    beforeAll(async () => {
      cli = await start(project(), ['--auth-token', flag]);
    });

    it('takes --auth-token over PLAITED_AUTH_TOKEN', async () => {
      expect(cli.stderr()).not.toContain(flag);
      expect((await initializeHttp(connect(cli.url, { token: flag }))).protocolVersion).toBe(acp.PROTOCOL_VERSION);
      const envToken = await fetch(cli.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_AUTH_TOKEN}` }, body: '{}' });
      expect(envToken.status).toBe(401);
    });

    it('still takes --auth-token, with a warning that it is visible in /proc/<pid>/cmdline', () => {
      expect(cli.stderr()).toContain('/proc/<pid>/cmdline');
      expect(cli.stderr()).toContain('--auth-token-file');
    });
  });

  it('serves without a token under --no-auth on loopback, and refuses to start with --no-auth on another host', async () => {
    const open = await start(project(), ['--no-auth']);
    expect((await initializeHttp(connect(open.url, { token: null }))).protocolVersion).toBe(acp.PROTOCOL_VERSION);

    for (const adapter of ['acp', 'mcp']) {
      const run = spawnSync(process.execPath, [CLI, '--adapter', adapter, '--transport', 'http', '--host', '0.0.0.0', '--port', '0', '--no-auth'], {
        cwd: project(),
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/--no-auth is only allowed with a loopback host/);
    }
  });

  it('reads the token from --auth-token-file over PLAITED_AUTH_TOKEN, with no warning and the token nowhere on stderr', async () => {
    const file = join(project(), 'token');
    const token = 'file-token-0123456789abcdefghij';
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    const cli = await start(project(), ['--auth-token-file', file]);
    expect((await initializeHttp(connect(cli.url, { token }))).protocolVersion).toBe(acp.PROTOCOL_VERSION);
    const envToken = await fetch(cli.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_AUTH_TOKEN}` }, body: '{}' });
    expect(envToken.status).toBe(401);
    expect(cli.stderr()).not.toContain(token);
    expect(cli.stderr()).not.toContain('cmdline');
  });

  it('refuses to start on a missing or empty --auth-token-file, saying which and what to do', () => {
    const cwd = project();
    writeFileSync(join(cwd, 'empty'), '\n');
    for (const [file, why] of [['missing', 'cannot be read'], ['empty', 'is empty']] as const) {
      const run = spawnSync(process.execPath, [CLI, '--transport', 'http', '--port', '0', '--auth-token-file', file], { cwd, encoding: 'utf8', timeout: 30_000 });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toContain(`--auth-token-file ${join(cwd, file)} ${why}`);
    }
  });

  it('refuses a token too short to be a secret', () => {
    const run = spawnSync(process.execPath, [CLI, '--transport', 'http', '--port', '0', '--auth-token', 'short'], { cwd: project(), encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/at least 16 characters/);
    // Named by where it came from, so the operator knows which one to replace.
    expect(run.stderr).toContain('the auth token from --auth-token-file (or --auth-token) must be at least 16 characters');
    const fromEnv = spawnSync(process.execPath, [CLI, '--transport', 'http', '--port', '0'], { cwd: project(), encoding: 'utf8', timeout: 30_000, env: { ...process.env, PLAITED_AUTH_TOKEN: 'short' } });
    expect(fromEnv.status).toBe(2);
    expect(fromEnv.stderr).toContain('the auth token from PLAITED_AUTH_TOKEN must be at least 16 characters');
  });
});

describe('network auth: the MCP face over HTTP', () => {
  let cli: HttpCli;
  let cwd: string;
  beforeAll(async () => {
    cwd = project();
    cli = await start(cwd, ['--adapter', 'mcp'], {}, MCP_URL);
  });

  const mcpClient = async (token: string | null): Promise<Client> => {
    const client = new Client({ name: 'auth-test', version: '1.0.0' });
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(cli.url), { requestInit: { headers } }));
    return client;
  };

  it('does not take the bearer subprotocol header on a plain HTTP request', async () => {
    expect((await postWithSubprotocolOnly(cli.url, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } })).status).toBe(401);
  });

  it('refuses a host without the token with 401 and a bearer challenge', async () => {
    const response = await fetch(cli.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32000);
    await expect(mcpClient(null)).rejects.toThrow();
  });

  it("hides one principal's sessions, transcripts and HTTP session from another", async () => {
    const owner = await mcpClient(TEST_AUTH_TOKEN);
    const alice = await mcpClient(ALICE);
    try {
      const opened = await owner.callTool({ name: 'new_session', arguments: {} });
      const sessionId = (opened.structuredContent as { sessionId: string }).sessionId;
      await owner.callTool({ name: 'prompt', arguments: { prompt: 'tell me a secret', sessionId } });

      const listed = await alice.callTool({ name: 'list_sessions', arguments: { cwd } });
      expect(JSON.stringify(listed.structuredContent)).not.toContain(sessionId);
      const resources = await alice.listResources();
      expect(resources.resources.map((resource) => resource.uri).join(' ')).not.toContain(sessionId);
      const prompted = await alice.callTool({ name: 'prompt', arguments: { prompt: 'and to me?', sessionId } });
      expect(prompted.isError).toBe(true);
      expect(JSON.stringify(prompted.content)).not.toContain('a secret answer');
      await expect(alice.readResource({ uri: `plaited://sessions/${sessionId}` })).rejects.toThrow(/Unknown session/);

      // The owner still sees all of it.
      const transcript = await owner.readResource({ uri: `plaited://sessions/${sessionId}` });
      expect(JSON.stringify(transcript.contents)).toContain('a secret answer');

      // Alice cannot ride the owner's HTTP session either.
      const ownerSession = (owner.transport as StreamableHTTPClientTransport).sessionId!;
      const hijack = await fetch(cli.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${ALICE}`,
          'mcp-session-id': ownerSession,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(hijack.status).toBe(404);
    } finally {
      await owner.close();
      await alice.close();
    }
  });
});
