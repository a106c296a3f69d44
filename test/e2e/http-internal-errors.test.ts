import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { connectAcpHttp, initializeHttp } from '../adapters/acp/acp-http-client.js';
import { initialize, startAcpCli } from '../helpers/acp-cli.js';
import { TEST_AUTH_HEADERS } from '../helpers/test-auth-token.js';
import { waitFor } from '../helpers/wait-for.js';

/*
 * A request that fails inside the server (here: its SQLite store, changed under it by this
 * test the way a full disk or a broken migration would) is answered in the protocol's own
 * shape, with the request's id and a message naming the cause and what to do, never a bare
 * "Internal error"; the next request succeeds.
 */

const clis: HttpCli[] = [];
afterEach(async () => {
  for (const cli of clis.splice(0)) await cli.close();
});

const ADVICE = /Retry it; if it fails again, the server log \(stderr\) has the details/;
type RpcReply = { jsonrpc?: string; id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

function project(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-internal-errors-'));
  mkdirSync(join(cwd, '.plaited'));
  return cwd;
}

async function start(cwd: string, args: string[], urlPattern: RegExp, transportFlag = true): Promise<HttpCli> {
  const cli = await startHttpCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', 'http://127.0.0.1:9/v1', ...args], urlPattern, transportFlag });
  clis.push(cli);
  return cli;
}

/** Runs `sql` on the project's state database, as another process touching the file would. */
function onStore(cwd: string, sql: string): void {
  const file = join(cwd, '.plaited/state/state.db');
  expect(existsSync(file), `${file} exists`).toBe(true);
  const db = new Database(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

const HIDE_SESSIONS = 'ALTER TABLE sessions RENAME TO sessions_away';
const RESTORE_SESSIONS = 'ALTER TABLE sessions_away RENAME TO sessions';

/** What a request rejected with, as the ACP SDK client sees the JSON-RPC error answering it (matched by the request's id). */
async function rejection(request: Promise<unknown>): Promise<{ code?: number; message: string; data?: unknown }> {
  return request.then(
    () => ({ message: 'it succeeded' }),
    (error: unknown) => error as { code?: number; message: string; data?: unknown },
  );
}

describe('HTTP faces: a request failing inside the server names its cause, the server lives on', () => {
  it('ACP over HTTP: the store failing under session/new and session/list is -32603 with the id, the cause (redacted) and what to do', async () => {
    const cwd = project();
    const cli = await start(cwd, [], /ACP over HTTP at (http:\/\/\S+\/acp)/);
    const client = connectAcpHttp(cli.url);
    try {
      await initializeHttp(client);
      await client.agent.request('session/new', { cwd, mcpServers: [] });

      // A write the store refuses, with a credential in its message.
      onStore(cwd, "CREATE TRIGGER refuse BEFORE INSERT ON sessions BEGIN SELECT RAISE(ABORT, 'disk quota exceeded at postgres://admin:hunter2hunter2@db.internal/x'); END");
      const refused = await rejection(client.agent.request('session/new', { cwd, mcpServers: [] }));
      expect(refused.code).toBe(-32603);
      expect(refused.message).toMatch(/^Internal error: .*disk quota exceeded at postgres:\/\/\[redacted\]@db\.internal/);
      expect(refused.message).toMatch(ADVICE);
      expect(JSON.stringify(refused.data)).not.toContain('hunter2');

      onStore(cwd, `DROP TRIGGER refuse; ${HIDE_SESSIONS}`);
      const listed = await rejection(client.agent.request('session/list', {}));
      expect(listed).toMatchObject({ code: -32603, message: expect.stringMatching(/^Internal error: .*no such table: sessions/) });
      expect(listed.message).toMatch(ADVICE);

      onStore(cwd, RESTORE_SESSIONS);
      expect((await client.agent.request('session/list', {})).sessions).toHaveLength(1);
    } finally {
      client.close();
    }
    expect(cli.stderr()).toMatch(/no such table: sessions/);
    expect(cli.child.exitCode).toBeNull();
  });

  it('ACP over WebSocket: the same failure is a -32603 frame with the id and the cause; the socket stays open', async () => {
    const cwd = project();
    const cli = await start(cwd, [], /ACP over HTTP at (http:\/\/\S+\/acp)/);
    const socket = new WebSocket(cli.url.replace(/^http/, 'ws'), { headers: TEST_AUTH_HEADERS });
    const frames: RpcReply[] = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data)) as RpcReply));
    await new Promise((open, fail) => socket.once('open', open).once('error', fail));
    const ask = async (message: { id: string }) => {
      socket.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
      await waitFor(() => frames.some((frame) => frame.id === message.id), 10_000, `the answer to ${message.id}`);
      return frames.find((frame) => frame.id === message.id)!;
    };
    try {
      await ask({ id: 'init', method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } } as { id: string });
      expect((await ask({ id: 'new', method: 'session/new', params: { cwd, mcpServers: [] } } as { id: string })).error).toBeUndefined();
      onStore(cwd, HIDE_SESSIONS);
      const failed = await ask({ id: 'list-1', method: 'session/list', params: {} } as { id: string });
      expect(failed).toMatchObject({ id: 'list-1', error: { code: -32603 } });
      expect(failed.error!.message).toMatch(/^Internal error: .*no such table: sessions/);
      expect(failed.error!.message).toMatch(ADVICE);
      onStore(cwd, RESTORE_SESSIONS);
      expect((await ask({ id: 'list-2', method: 'session/list', params: {} } as { id: string })).result).toMatchObject({ sessions: [expect.anything()] });
      expect(socket.readyState).toBe(WebSocket.OPEN);
    } finally {
      socket.close();
    }
  });

  it('ACP over stdio answers the same way (one rewrite for every transport)', async () => {
    const cwd = project();
    const cli = startAcpCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', 'http://127.0.0.1:9/v1'] });
    try {
      await initialize(cli);
      await cli.agent.request('session/new', { cwd, mcpServers: [] });
      onStore(cwd, HIDE_SESSIONS);
      const listed = await rejection(cli.agent.request('session/list', {}));
      expect(listed).toMatchObject({ code: -32603, message: expect.stringMatching(/^Internal error: .*no such table: sessions/) });
      expect(listed.message).toMatch(ADVICE);
      onStore(cwd, RESTORE_SESSIONS);
      expect((await cli.agent.request('session/list', {})).sessions).toHaveLength(1);
    } finally {
      await cli.close();
    }
  });

  it('MCP over HTTP: the store failing under resources/list is -32603 naming the cause and what to do', async () => {
    const cwd = project();
    const cli = await start(cwd, ['--adapter', 'mcp'], /MCP over streamable HTTP at (http:\/\/\S+\/mcp)/);
    const client = new Client({ name: 'plaited-internal-errors-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(cli.url), { requestInit: { headers: TEST_AUTH_HEADERS } }));
    try {
      await client.listResources();
      onStore(cwd, HIDE_SESSIONS);
      const failure = await client.listResources().then(
        () => undefined,
        (error: unknown) => error as { code?: number; message: string },
      );
      expect(failure?.code).toBe(-32603);
      expect(failure?.message).toMatch(/Internal error: .*no such table: sessions/);
      expect(failure?.message).toMatch(ADVICE);
      // A 2026-07-28 client is served per request by the SDK's own handler: the same answer.
      const modern = new Client({ name: 'plaited-internal-errors-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await modern.connect(new StreamableHTTPClientTransport(new URL(cli.url), { requestInit: { headers: TEST_AUTH_HEADERS } }));
      const modernFailure = await modern.listResources().then(
        () => undefined,
        (error: unknown) => error as { code?: number; message: string },
      );
      await modern.close();
      expect(modernFailure?.code).toBe(-32603);
      expect(modernFailure?.message).toMatch(/Internal error: .*no such table: sessions/);
      expect(modernFailure?.message).toMatch(ADVICE);

      onStore(cwd, RESTORE_SESSIONS);
      expect((await client.listResources()).resources).toBeDefined();
      expect(cli.child.exitCode).toBeNull();
    } finally {
      await client.close();
    }
  });

  it('A2A: the task store failing is -32603 with the id over JSON-RPC (0.3 and 1.0) and a 500 INTERNAL over REST, each naming the cause', async () => {
    const cwd = project();
    const cli = await start(cwd, ['--adapter', 'a2a'], /A2A at (http:\/\/\S+)\/a2a /, false);
    const headers = (version?: string) => ({ ...TEST_AUTH_HEADERS, 'content-type': 'application/json', ...(version ? { 'a2a-version': version } : {}) });
    const rpc = async (body: object, version?: string) =>
      (await (await fetch(`${cli.url}/a2a`, { method: 'POST', headers: headers(version), body: JSON.stringify({ jsonrpc: '2.0', ...body }) })).json()) as RpcReply;
    expect((await rpc({ id: 1, method: 'tasks/get', params: { id: 'nothing' } })).error?.code).toBe(-32001);

    onStore(cwd, 'ALTER TABLE a2a_tasks RENAME TO a2a_tasks_away');
    const legacy = await rpc({ id: 'get-03', method: 'tasks/get', params: { id: 'nothing' } });
    expect(legacy).toMatchObject({ id: 'get-03', error: { code: -32603, message: expect.stringMatching(/^Internal error: .*no such table: a2a_tasks/) } });
    expect(legacy.error!.message).toMatch(ADVICE);
    const v1 = await rpc({ id: 'get-10', method: 'GetTask', params: { id: 'nothing' } }, '1.0');
    expect(v1).toMatchObject({ id: 'get-10', error: { code: -32603, message: expect.stringMatching(/no such table: a2a_tasks.*Retry it/) } });
    const rest = await fetch(`${cli.url}/a2a/rest/tasks/nothing`, { headers: headers('1.0') });
    expect(rest.status).toBe(500);
    const restBody = (await rest.json()) as { error: { code: number; status: string; message: string } };
    expect(restBody.error).toMatchObject({ code: 500, status: 'INTERNAL', message: expect.stringMatching(/^Internal error: .*no such table: a2a_tasks/) });
    expect(restBody.error.message).toMatch(ADVICE);

    onStore(cwd, 'ALTER TABLE a2a_tasks_away RENAME TO a2a_tasks');
    expect(await rpc({ id: 2, method: 'tasks/get', params: { id: 'nothing' } })).toMatchObject({ id: 2, error: { code: -32001 } });
    expect(cli.child.exitCode).toBeNull();
  });
});
