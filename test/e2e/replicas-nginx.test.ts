import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { connectAcpHttp, initializeHttp, textOf, type AcpHttpClient, type SeenResponse } from '../adapters/acp/acp-http-client.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { NGINX_REFERENCE_REPLICAS, startNginxBalancer, type NginxBalancer } from '../helpers/nginx-balancer.js';
import { TEST_AUTH_HEADERS } from '../helpers/test-auth-token.js';
import { waitFor } from '../helpers/wait-for.js';

const URL_LINE = /ACP over HTTP at (http:\/\/\S+\/acp)/;
const ROUTES = NGINX_REFERENCE_REPLICAS.map((replica) => replica.replicaId);
let cluster: PostgresCluster;
let model: ScriptedOpenAIServer;
let nginx: NginxBalancer;
/** By route name (`replica-a`, ...), as the reference nginx configuration names them. */
const replicas = new Map<string, HttpCli>();
const clients: AcpHttpClient[] = [];

/** A replica's own folder (its process records, its index): nothing of it is shared. */
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-replica-'));
  mkdirSync(join(dir, '.plaited'));
  return dir;
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  const store = await cluster.createDatabase();
  model = await startScriptedOpenAIServer();
  const started = await Promise.all(
    ROUTES.map((route) =>
      startHttpCli({ cwd: folder(), args: ['--model', 'openai-compatible:scripted', '--base-url', model.url, '--store', store, '--replica-id', route], urlPattern: URL_LINE }),
    ),
  );
  started.forEach((cli, index) => replicas.set(ROUTES[index]!, cli));
  nginx = await startNginxBalancer(started.map((cli) => Number(new URL(cli.url).port)));
}, 180_000);
afterAll(async () => {
  await nginx?.stop();
  for (const cli of replicas.values()) await cli.close();
  await model?.close();
  await cluster?.stop();
}, 60_000);
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

interface Routed {
  client: AcpHttpClient;
  /** The replica that answered `initialize` (or the upgrade). */
  replica: string;
  /** Every answer this client has seen so far. */
  seen: SeenResponse[];
}

/**
 * A client connected through nginx to a replica not in `avoid`: the pool is round robin, so a
 * few fresh connections reach every live replica; one that lands on an avoided replica is closed.
 */
async function connectElsewhere(transport: 'http' | 'websocket', avoid: ReadonlySet<string>): Promise<Routed> {
  for (let attempt = 0; attempt < ROUTES.length * 2; attempt++) {
    const seen: SeenResponse[] = [];
    const client = connectAcpHttp(`${nginx.origin}/acp`, { transport, onResponse: (answer) => seen.push(answer) });
    clients.push(client);
    await initializeHttp(client);
    const replica = seen[0]?.replica;
    expect(replica, `the first answer through nginx names its replica: ${JSON.stringify(seen)}`).toBeTypeOf('string');
    if (!avoid.has(replica!)) return { client, replica: replica!, seen };
    client.close();
  }
  throw new Error(`no replica outside ${[...avoid].join(', ')} answered through nginx; access log:\n${nginx.accessLog()}`);
}

/** Every answer a client saw came from the replica that holds its connection (the prefix routing). */
function expectAffinity(routed: Routed): void {
  expect(new Set(routed.seen.map((answer) => answer.replica))).toEqual(new Set([routed.replica]));
  for (const answer of routed.seen.filter((seen) => seen.connectionId !== null)) expect(answer.connectionId!.startsWith(`${routed.replica}.`)).toBe(true);
}

async function prompt(routed: Routed, sessionId: string, reply: string): Promise<void> {
  model.push({ text: reply });
  const from = routed.client.updates.length;
  expect((await routed.client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go on' }] })).stopReason).toBe('end_turn');
  expect(textOf(routed.client, sessionId, from)).toBe(reply);
}

/** Loads the session on this client's replica and waits for its history to replay. */
async function load(routed: Routed, sessionId: string, cwd: string, lastReply: string): Promise<void> {
  await routed.client.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
  await waitFor(() => textOf(routed.client, sessionId).includes(lastReply), 15_000, `the history replayed on ${routed.replica}`);
}

async function readyThroughNginx(): Promise<{ status: number; body: string; replica: string | null }> {
  const response = await fetch(`${nginx.origin}/readyz`);
  return { status: response.status, body: await response.text(), replica: response.headers.get('plaited-replica') };
}

describe('three replicas on one PostgreSQL behind nginx (the reference configuration)', () => {
  it('answers /readyz through nginx, round robin over the replicas', async () => {
    const answers = [];
    for (let index = 0; index < ROUTES.length; index++) answers.push(await readyThroughNginx());
    expect(answers.map(({ status, body }) => [status, body])).toEqual(ROUTES.map(() => [200, 'ready\n']));
    expect(new Set(answers.map((answer) => answer.replica))).toEqual(new Set(ROUTES));
  });

  for (const transport of ['http', 'websocket'] as const) {
    it(`ACP over ${transport === 'http' ? 'streamable HTTP' : 'WebSocket'}: a session created on one replica is loaded and prompted on each of the others`, async () => {
      const cwd = folder(); // the shared workspace: the same path on every replica
      const first = await connectElsewhere(transport, new Set());
      const { sessionId } = await first.client.agent.request('session/new', { cwd, mcpServers: [] });
      await prompt(first, sessionId, `Created on ${first.replica}.`);
      await first.client.agent.request('session/close', { sessionId });

      const second = await connectElsewhere(transport, new Set([first.replica]));
      await load(second, sessionId, cwd, `Created on ${first.replica}.`);
      await prompt(second, sessionId, `Continued on ${second.replica}.`);
      await second.client.agent.request('session/close', { sessionId });

      const third = await connectElsewhere(transport, new Set([first.replica, second.replica]));
      await load(third, sessionId, cwd, `Continued on ${second.replica}.`);
      await prompt(third, sessionId, `Finished on ${third.replica}.`);
      // Each turn's request carried the whole history, whichever replica ran it.
      expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain(`Continued on ${second.replica}.`);
      expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain(`Created on ${first.replica}.`);

      expect(new Set([first.replica, second.replica, third.replica])).toEqual(new Set(ROUTES));
      for (const routed of [first, second, third]) expectAffinity(routed);
      if (transport === 'http') {
        // The POSTs and the SSE streams of a connection all carried its id, and all reached its replica.
        expect(third.seen.filter((answer) => answer.connectionId !== null).map((answer) => answer.method)).toEqual(expect.arrayContaining(['POST', 'GET']));
      }
    });
  }

  it('a connection id whose route nginx does not know reaches some replica, which answers with the misrouting error', async () => {
    const response = await fetch(`${nginx.origin}/acp`, {
      method: 'POST',
      headers: { ...TEST_AUTH_HEADERS, 'content-type': 'application/json', 'acp-connection-id': 'replica-z.00000000-0000-0000-0000-000000000000' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'session/list', params: {} }),
    });
    expect(response.status).toBe(421);
    const body = (await response.json()) as { id: number; error: { code: number; message: string; data: { code: string; connectionReplica: string } } };
    expect(body).toMatchObject({ id: 3, error: { code: -32001, data: { code: 'connection_misrouted', connectionReplica: 'replica-z' } } });
    expect(body.error.message).toContain('Acp-Connection-Id');
  });

  it('routes a request with an Mcp-Session-Id to the replica its prefix names, like an ACP connection id', async () => {
    const [, target] = ROUTES;
    const answered = [];
    for (let index = 0; index < ROUTES.length; index++) {
      // These replicas serve no /mcp: the 404 still says which replica nginx chose.
      const response = await fetch(`${nginx.origin}/mcp`, { method: 'POST', headers: { ...TEST_AUTH_HEADERS, 'content-type': 'application/json', 'mcp-session-id': `${target}.00000000-0000-0000-0000-000000000000` }, body: '{}' });
      await response.body?.cancel();
      answered.push(response.headers.get('plaited-replica'));
    }
    expect(answered).toEqual(ROUTES.map(() => target));
  });

  it('one replica stopped: nginx routes around it, and its session continues on the others', async () => {
    const cwd = folder();
    const doomed = await connectElsewhere('http', new Set());
    const { sessionId } = await doomed.client.agent.request('session/new', { cwd, mcpServers: [] });
    await prompt(doomed, sessionId, `Started on ${doomed.replica}.`);
    await replicas.get(doomed.replica)!.close();
    replicas.delete(doomed.replica); // closed once, not again in afterAll

    // Its connection is gone with it: nginx says so (410, a JSON-RPC error), not a bare 502.
    const connectionId = doomed.seen.find((answer) => answer.connectionId !== null)!.connectionId!;
    const gone = await fetch(`${nginx.origin}/acp`, {
      method: 'POST',
      headers: { ...TEST_AUTH_HEADERS, 'content-type': 'application/json', 'acp-connection-id': connectionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'session/list', params: { cwd } }),
    });
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as { error: { message: string } }).error.message).toMatch(/^Connection gone: .*Open a new connection \(initialize\) and continue with session\/load$/);
    // New requests never reach it: the pool skips it after the first refused connection.
    const ready = [];
    for (let index = 0; index < ROUTES.length * 2; index++) ready.push(await readyThroughNginx());
    expect(ready.every((answer) => answer.status === 200)).toBe(true);
    expect(new Set(ready.map((answer) => answer.replica))).toEqual(new Set(ROUTES.filter((route) => route !== doomed.replica)));

    const survivor = await connectElsewhere('http', new Set());
    expect(survivor.replica).not.toBe(doomed.replica);
    await load(survivor, sessionId, cwd, `Started on ${doomed.replica}.`);
    await prompt(survivor, sessionId, `Rescued on ${survivor.replica}.`);
    expectAffinity(survivor);
    const ws = await connectElsewhere('websocket', new Set([survivor.replica]));
    expect(ws.replica).not.toBe(doomed.replica);
    expect((await ws.client.agent.request('session/list', { cwd })).sessions.map((session: { sessionId: string }) => session.sessionId)).toEqual([sessionId]);
  });
});
