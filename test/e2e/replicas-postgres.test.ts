import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { connectAcpHttp, initializeHttp, textOf } from '../adapters/acp/acp-http-client.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { waitFor, waitForAsync } from '../helpers/wait-for.js';
import { INTERRUPTED_MARK } from '../../src/agent/recover-interrupted-reply.js';
import { acpClients, replicaFolder } from '../helpers/replica-kit.js';
import { runCliOnce } from '../helpers/run-cli-once.js';
import { requireTestModel } from '../model/test-models.js';

const URL_LINE = /ACP over HTTP at (http:\/\/\S+\/acp)/;
let cluster: PostgresCluster;
let model: ScriptedOpenAIServer;
let first: HttpCli;
let second: HttpCli;
let store: string;
const clients = acpClients();
const connect = (cli: HttpCli) => clients.connect(cli);


beforeAll(async () => {
  cluster = await startPostgresCluster();
  store = await cluster.createDatabase();
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
  clients.closeAll();
});


async function failure(request: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await request;
  } catch (error) {
    return error as { code: number; message: string; data?: unknown };
  }
  throw new Error('the request succeeded');
}

const origin = (cli: HttpCli) => new URL(cli.url).origin;

/** A loopback port nothing listens on (taken, then let go). */
function closedPort(): Promise<number> {
  return new Promise((found) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => found(port));
    });
  });
}

/** The session's stored reply text, read from the database as any replica would. */
async function storedText(url: string, sessionId: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ data: string }>("SELECT data FROM events WHERE session_id = $1 AND type = 'text-delta' ORDER BY seq", [sessionId]);
    return rows.map((row) => (JSON.parse(row.data) as { text: string }).text).join('');
  } finally {
    await client.end();
  }
}


describe('what an operator gets wrong about the store, told at start', () => {
  const missing = () => store.replace(/\/[^/]+$/, '/no_such_db');
  const noStack = /\n\s+at /;

  it('a user the server does not know stops the start (exit 2), naming the fix; doctor names a database that does not exist', async () => {
    const cwd = replicaFolder();
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 } }));
    const unknownUser = store.replace('postgres@', 'nobody_here@');
    const start = await runCliOnce(['--transport', 'http', '--port', '0', '--model', 'openai-compatible:scripted', '--base-url', model.url], { cwd, env: { PLAITED_STORE: unknownUser } });
    expect(start.status).toBe(2);
    expect(start.stderr).toMatch(/cannot open session store postgres:\/\/nobody_here@127\.0\.0\.1:\d+\/\w+: role "nobody_here" does not exist; fix the user or password in the store URL/);
    expect(start.stderr).not.toMatch(noStack);
    expect(start.stderr).not.toContain('ACP over HTTP at');
    // A missing database is not fatal at start (it may be created after the replicas: see a2a-replicas-postgres), but doctor names it.
    const doctor = await runCliOnce(['doctor', '--model', 'openai-compatible:scripted', '--base-url', model.url], { cwd, env: { PLAITED_STORE: missing() } });
    expect(doctor.stdout).toMatch(/✗ state store: cannot open session store \S+\/no_such_db: database "no_such_db" does not exist; create that database/);
    expect(doctor.stdout).not.toContain('state.db');
  });

  it('a server that refuses connections: logged at start, and the replica serves with /readyz 503; a replica without a token is told to share one', async () => {
    const cwd = replicaFolder();
    const refused = `postgres://postgres@127.0.0.1:${await closedPort()}/agent`;
    // Started with no token, as a replica should not be: it says so (a generated token differs per replica).
    const cli = await startHttpCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', model.url], urlPattern: URL_LINE, env: { PLAITED_STORE: refused, PLAITED_AUTH_TOKEN: undefined } });
    try {
      expect(cli.stderr()).toContain('this replica generated its own token, but it shares a PostgreSQL store with others: give every replica the same PLAITED_AUTH_TOKEN');
      // The log redacts the configured URL whole; the address is named in the fix.
      expect(cli.stderr()).toMatch(/error: cannot open session store .*ECONNREFUSED.*; start PostgreSQL at 127\.0\.0\.1:\d+, or fix the host and port/);
      const ready = await fetch(`${origin(cli)}/readyz`);
      expect([ready.status, await ready.text()]).toEqual([503, 'not ready: open_failed\n']);
    } finally {
      await cli.close();
    }
  });

  it('sessions list reads the store of PLAITED_STORE or --store, as the replicas do', async () => {
    const cwd = replicaFolder();
    const a = await connect(first);
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] });
    const listed = await runCliOnce(['sessions', 'list'], { cwd, env: { PLAITED_STORE: store } });
    expect(listed.stdout).toContain(sessionId);
    const flagged = await runCliOnce(['sessions', 'list', '--store', store], { cwd });
    expect(flagged.stderr).toBe('');
    expect(flagged.stdout).toContain(sessionId);
  });
});

describe('two CLI replicas sharing one PostgreSQL store (ACP over HTTP)', () => {
  it('answers /healthz and /readyz without a token', async () => {
    for (const cli of [first, second]) {
      const health = await fetch(`${origin(cli)}/healthz`);
      expect([health.status, await health.text()]).toEqual([200, 'ok\n']);
      const ready = await fetch(`${origin(cli)}/readyz`);
      expect([ready.status, await ready.text()]).toEqual([200, 'ready\n']);
    }
  });

  it('a session created through one replica: loaded on the other with its history, its turns refused there while held', async () => {
    const cwd = replicaFolder(); // the shared workspace: the same path on both replicas
    const a = await connect(first);
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] });
    model.push({ text: 'Remember the number 42.' });
    await a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'remember' }] });

    const b = await connect(second);
    const listed = await b.agent.request('session/list', { cwd });
    expect(listed.sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual([sessionId]);
    // Loading reads the shared history (a turn running there would follow live); a turn needs the lease.
    await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    await waitFor(() => textOf(b, sessionId) === 'Remember the number 42.', 10_000, 'the first replica’s turn replayed on the second');
    const refused = await failure(b.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what number?' }] }));
    expect(refused.code).toBe(-32603);
    expect(refused.data).toMatchObject({ code: 'session_in_use' });
    // The holder by pid and host (the CLI re-runs itself without its secrets: the pid is its child's).
    expect(refused.message).toMatch(new RegExp(`open in another plaited-agent process \\(pid \\d+ on ${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')},`));

    await a.agent.request('session/close', { sessionId });
    model.push({ text: 'It was 42.' });
    expect((await b.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what number?' }] })).stopReason).toBe('end_turn');
    expect(JSON.stringify(model.requests[model.requests.length - 1]!.messages)).toContain('Remember the number 42.');
  });

  it('a replica killed mid-reply: another serves the session at once, the streamed text on record as interrupted', async () => {
    const crashing = await startHttpCli({ cwd: replicaFolder(), args: ['--model', 'openai-compatible:scripted', '--base-url', model.url, '--store', store], urlPattern: URL_LINE });
    const cwd = replicaFolder();
    const a = await connect(crashing);
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] });
    const words = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    model.push({ text: words, chunkDelayMs: 50 });
    void a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'talk slowly' }] }).catch(() => undefined);
    await waitFor(() => textOf(a, sessionId).includes('w20 '), 15_000, 'twenty words on screen');
    const shown = textOf(a, sessionId);
    await waitForAsync(async () => (await storedText(store, sessionId)).startsWith(shown), 10_000, 'the shown text in PostgreSQL');
    // The agent itself (the launcher's child: the CLI re-runs itself without its secrets), as a crash would.
    const agentPid = Number(spawnSync('pgrep', ['-P', String(crashing.child.pid)], { encoding: 'utf8' }).stdout.trim().split('\n')[0]);
    expect(agentPid).toBeGreaterThan(0);
    process.kill(agentPid, 'SIGKILL');
    await crashing.close();

    const b = await connect(second);
    await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    await waitFor(() => textOf(b, sessionId).endsWith(`\n\n${INTERRUPTED_MARK}`), 10_000, 'the interrupted reply replayed');
    const replayed = textOf(b, sessionId);
    expect(replayed.startsWith(shown)).toBe(true);
    expect(words.startsWith(replayed.slice(0, -INTERRUPTED_MARK.length).trimEnd())).toBe(true);
  });

  it('a client that went away without closing its session: the replica lets it go, and the other replica serves it', async () => {
    const cwd = replicaFolder();
    const a = connectAcpHttp(first.url, { transport: 'websocket' });
    await initializeHttp(a);
    const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] });
    model.push({ text: 'Noted.' });
    await a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'note this' }] });
    a.close(); // the editor's connection dropped: no session/close was sent

    const b = await connect(second);
    await waitForAsync(
      async () =>
        b.agent.request('session/resume', { sessionId, cwd, mcpServers: [] }).then(
          () => true,
          (error: { data?: { code?: string } }) => {
            if (error.data?.code !== 'session_in_use') throw error;
            return false;
          },
        ),
      10_000,
      'the first replica to let the session go',
    );
    model.push({ text: 'Still here.' });
    expect((await b.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go on' }] })).stopReason).toBe('end_turn');
  });

  it('is not ready once the store is gone, and still alive', async () => {
    await cluster.stop();
    const ready = await fetch(`${origin(first)}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toMatch(/^not ready: /);
    expect((await fetch(`${origin(first)}/healthz`)).status).toBe(200);
  });
});
