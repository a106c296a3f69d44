import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { textOf, type AcpHttpClient } from '../adapters/acp/acp-http-client.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { waitFor } from '../helpers/wait-for.js';
import { INTERRUPTED_MARK } from '../../src/agent/recover-interrupted-reply.js';
import { TEST_AUTH_TOKEN } from '../helpers/test-auth-token.js';
import { acpClients, gate } from '../helpers/replica-kit.js';

const URL_LINE = /ACP over HTTP at (http:\/\/\S+\/acp)/;
let cluster: PostgresCluster;
let model: ScriptedOpenAIServer;
let store: string;
let other: HttpCli;
const replicas: HttpCli[] = [];
const clients = acpClients();
const connect = (cli: HttpCli) => clients.connect(cli);

/** A replica's own folder, with its config when given. */
function folder(config?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-replica-'));
  mkdirSync(join(dir, '.plaited'));
  if (config !== undefined) writeFileSync(join(dir, '.plaited', 'config.json'), JSON.stringify(config));
  return dir;
}

async function replica(config?: unknown): Promise<HttpCli> {
  const cli = await startHttpCli({ cwd: folder(config), args: ['--model', 'openai-compatible:scripted', '--base-url', model.url, '--store', store], urlPattern: URL_LINE });
  replicas.push(cli);
  return cli;
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  store = await cluster.createDatabase();
  model = await startScriptedOpenAIServer();
  other = await replica();
}, 120_000);
afterAll(async () => {
  for (const cli of replicas) await cli.close();
  await model?.close();
  await cluster?.stop();
}, 60_000);
afterEach(() => {
  clients.closeAll();
});



const exited = (cli: HttpCli) =>
  new Promise<number | null>((resolve) => (cli.child.exitCode !== null ? resolve(cli.child.exitCode) : cli.child.once('exit', (code) => resolve(code))));
const readyz = async (cli: HttpCli) => {
  const response = await fetch(`${new URL(cli.url).origin}/readyz`);
  return `${response.status} ${await response.text()}`;
};
const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`).join(' ');

/** A session on `cli` with a reply streaming, held mid-stream until `hold` opens. */
async function streaming(cli: HttpCli, hold: Promise<void>, reply: string) {
  const cwd = folder();
  const a = await connect(cli);
  const { sessionId } = await a.agent.request('session/new', { cwd, mcpServers: [] });
  model.push({ text: reply, chunkDelayMs: 5, holdAfter: { chunks: 30, until: hold } });
  const prompted = a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'talk' }] });
  await waitFor(() => textOf(a, sessionId).includes('w20 '), 15_000, 'the reply streaming');
  return { a, sessionId, cwd, prompted };
}

/** The session served by the other replica at once: loaded, and a turn there ends normally. */
async function promptOnOther(sessionId: string, cwd: string): Promise<AcpHttpClient> {
  const b = await connect(other);
  await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
  model.push({ text: 'taken over' });
  expect(await b.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go on' }] })).toMatchObject({ stopReason: 'end_turn' });
  return b;
}

describe('a replica shutting down on SIGTERM (ACP over HTTP, PostgreSQL)', () => {
  it('drains: not ready and refusing prompts at once, lets the running turn finish, exits 0, and the session moves on at once', async () => {
    const draining = await replica();
    const hold = gate();
    const reply = words(60);
    const { a, sessionId, cwd, prompted } = await streaming(draining, hold.opened, reply);
    const { sessionId: idle } = await a.agent.request('session/new', { cwd: folder(), mcpServers: [] });
    const exit = exited(draining);

    draining.child.kill('SIGTERM');
    // The signal reaches the agent through its launcher: asked until it has, then 503 from the first answer on.
    let ready = await readyz(draining);
    for (const deadline = Date.now() + 10_000; ready.startsWith('200') && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      ready = await readyz(draining);
    }
    expect(ready).toBe('503 not ready: agent_draining\n');
    const refused = await a.agent.request('session/prompt', { sessionId: idle, prompt: [{ type: 'text', text: 'one more' }] }).then(
      () => undefined,
      (error: { message: string; data?: unknown }) => error,
    );
    expect(refused?.data).toMatchObject({ code: 'agent_draining' });
    expect(refused?.message).toMatch(/draining .*send the prompt to another replica/);
    // A new connection is turned away (the open ones go on): 503, and the JSON-RPC error for its initialize.
    const initialize = { jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } };
    const refusedConnection = await fetch(draining.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_AUTH_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize),
    });
    expect(refusedConnection.status).toBe(503);
    expect(await refusedConnection.json()).toMatchObject({ id: 7, error: { code: -32603, data: { code: 'agent_draining' } } });

    hold.open();
    expect(await prompted).toMatchObject({ stopReason: 'end_turn' });
    expect(textOf(a, sessionId)).toBe(reply);
    expect(await exit).toBe(0);

    const b = await promptOnOther(sessionId, cwd);
    expect(textOf(b, sessionId)).toBe(`${reply}taken over`);
  });

  it('drains once when the SIGTERM reaches the launcher and the agent both (a process group stopped: systemd, GNU timeout, a CI cancel)', async () => {
    // The launcher passes on what it gets; counted as a second signal, that one ended the drain at once.
    const draining = await replica();
    const hold = gate();
    const reply = words(60);
    const { a, sessionId, prompted } = await streaming(draining, hold.opened, reply);
    const exit = exited(draining);
    const agentPid = Number(spawnSync('pgrep', ['-P', String(draining.child.pid)], { encoding: 'utf8' }).stdout.trim().split('\n')[0]);
    expect(agentPid).toBeGreaterThan(0);

    process.kill(agentPid, 'SIGTERM');
    draining.child.kill('SIGTERM');
    await waitFor(() => /SIGTERM: draining/.test(draining.stderr()), 10_000, 'the drain to begin');
    hold.open();
    expect(await prompted).toMatchObject({ stopReason: 'end_turn' });
    expect(textOf(a, sessionId)).toBe(reply);
    expect(await exit).toBe(0);
  });

  it('past its grace period cancels the turn, records the reply as interrupted, and still exits 0', async () => {
    const draining = await replica({ server: { shutdownGraceMs: 200 } });
    const hold = gate();
    const { sessionId, cwd, prompted } = await streaming(draining, hold.opened, words(60));
    const exit = exited(draining);

    draining.child.kill('SIGTERM');
    expect(await prompted).toMatchObject({ stopReason: 'cancelled' });
    expect(await exit).toBe(0);
    hold.open();

    const b = await promptOnOther(sessionId, cwd);
    const replayed = textOf(b, sessionId);
    expect(replayed).toMatch(/^w0 w1 .*\n\n\[interrupted: [^\]]+\]taken over$/s);
    expect(replayed).toContain(`\n\n${INTERRUPTED_MARK}taken over`);
  });
});
