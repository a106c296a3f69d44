import { mkdirSync, mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { connectAcpHttp, initializeHttp, textOf, type AcpHttpClient } from '../adapters/acp/acp-http-client.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { waitFor } from '../helpers/wait-for.js';

const URL_LINE = /ACP over HTTP at (http:\/\/\S+\/acp)/;
let cluster: PostgresCluster;
let model: ScriptedOpenAIServer;
let first: HttpCli;
let second: HttpCli;
const clients: AcpHttpClient[] = [];

/** A replica's own folder (its process records, its index): nothing of it is shared. */
function replicaFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-replica-'));
  mkdirSync(join(dir, '.plaited'));
  return dir;
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  const store = await cluster.createDatabase();
  model = await startScriptedOpenAIServer();
  const modelArgs = ['--model', 'openai-compatible:scripted', '--base-url', model.url];
  // One replica is given the URL as a flag, the other through PLAITED_STORE.
  first = await startHttpCli({ cwd: replicaFolder(), args: [...modelArgs, '--store', store], urlPattern: URL_LINE });
  second = await startHttpCli({ cwd: replicaFolder(), args: modelArgs, urlPattern: URL_LINE, env: { PLAITED_STORE: store } });
}, 120_000);
afterAll(async () => {
  await first?.close();
  await second?.close();
  await model?.close();
  await cluster?.stop();
}, 60_000);
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

async function connect(cli: HttpCli): Promise<AcpHttpClient> {
  const client = connectAcpHttp(cli.url);
  clients.push(client);
  await initializeHttp(client);
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

const origin = (cli: HttpCli) => new URL(cli.url).origin;

describe('two CLI replicas sharing one PostgreSQL store (ACP over HTTP)', () => {
  it('answers /healthz and /readyz without a token', async () => {
    for (const cli of [first, second]) {
      const health = await fetch(`${origin(cli)}/healthz`);
      expect([health.status, await health.text()]).toEqual([200, 'ok\n']);
      const ready = await fetch(`${origin(cli)}/readyz`);
      expect([ready.status, await ready.text()]).toEqual([200, 'ready\n']);
    }
  });

  it('a session created through one replica is refused to the other while held, then loaded there with its history', async () => {
    const cwd = replicaFolder(); // the shared workspace: the same path on both replicas
    const a = await connect(first);
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] });
    model.push({ text: 'Remember the number 42.' });
    await a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'remember' }] });

    const b = await connect(second);
    const listed = await b.agent.request('session/list', { cwd });
    expect(listed.sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual([sessionId]);
    const refused = await failure(b.agent.request('session/load', { sessionId, cwd, mcpServers: [] }));
    expect(refused.code).toBe(-32603);
    expect(refused.data).toMatchObject({ code: 'session_in_use' });
    // The holder by pid and host (the CLI re-runs itself without its secrets: the pid is its child's).
    expect(refused.message).toMatch(new RegExp(`open in another plaited-agent process \\(pid \\d+ on ${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')},`));

    await a.agent.request('session/close', { sessionId });
    await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    await waitFor(() => textOf(b, sessionId) === 'Remember the number 42.', 10_000, 'the first replica’s turn replayed on the second');
    model.push({ text: 'It was 42.' });
    expect((await b.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what number?' }] })).stopReason).toBe('end_turn');
    expect(JSON.stringify(model.requests[model.requests.length - 1]!.messages)).toContain('Remember the number 42.');
  });

  it('is not ready once the store is gone, and still alive', async () => {
    await cluster.stop();
    const ready = await fetch(`${origin(first)}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toMatch(/^not ready: /);
    expect((await fetch(`${origin(first)}/healthz`)).status).toBe(200);
  });
});
