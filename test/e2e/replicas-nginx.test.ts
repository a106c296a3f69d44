import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { a2aProject, eventState, isTask, messageText, startA2aCli, TOKEN, userMessage, type A2aCli } from '../adapters/a2a/a2a-cli.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { connectAcpHttp, initializeHttp, textOf, type AcpHttpClient, type SeenResponse } from '../adapters/acp/acp-http-client.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { freePort, NGINX_REFERENCE_REPLICAS, startNginxBalancer, type NginxBalancer } from '../helpers/nginx-balancer.js';
import { TEST_AUTH_HEADERS } from '../helpers/test-auth-token.js';
import { waitFor } from '../helpers/wait-for.js';
import { replicaFolder } from '../helpers/replica-kit.js';

const URL_LINE = /ACP over HTTP at (http:\/\/\S+\/acp)/;
const ROUTES = NGINX_REFERENCE_REPLICAS.map((replica) => replica.replicaId);
let cluster: PostgresCluster;
let store: string;
let model: ScriptedOpenAIServer;
let nginx: NginxBalancer;
/** By route name (`replica-a`, ...), as the reference nginx configuration names them. */
const replicas = new Map<string, HttpCli>();
const clients: AcpHttpClient[] = [];


beforeAll(async () => {
  cluster = await startPostgresCluster();
  store = await cluster.createDatabase();
  model = await startScriptedOpenAIServer();
  const started = await Promise.all(
    ROUTES.map((route) =>
      startHttpCli({ cwd: replicaFolder(), args: ['--model', 'openai-compatible:scripted', '--base-url', model.url, '--store', store, '--replica-id', route], urlPattern: URL_LINE }),
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
      const cwd = replicaFolder(); // the shared workspace: the same path on every replica
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
    const cwd = replicaFolder();
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

describe('A2A replicas behind the same nginx configuration', () => {
  let balancer: NginxBalancer;
  const peers: A2aCli[] = [];
  /** Which replica answered each JSON-RPC call, in order. */
  const answeredBy: string[] = [];

  beforeAll(async () => {
    // The card must name the balancer, not the replica that serves it: peers would bypass nginx.
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    for (const route of ROUTES) {
      peers.push(await startA2aCli({ cwd: a2aProject({ adapters: { a2a: { publicUrl } } }), args: ['--adapter', 'a2a', '--model', 'openai-compatible:scripted', '--base-url', model.url, '--store', store, '--replica-id', route] }));
    }
    balancer = await startNginxBalancer(peers.map((peer) => Number(new URL(peer.origin).port)), { listenPort: port });
  }, 180_000);
  afterAll(async () => {
    await balancer?.stop();
    for (const peer of peers) await peer.close();
  }, 60_000);

  /** The SDK's client through nginx, from the card nginx serves; each JSON-RPC answer's replica noted. */
  async function throughNginx(): Promise<Client> {
    const fetchImpl: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      request.headers.set('authorization', `Bearer ${TOKEN}`);
      const response = await fetch(request);
      if (new URL(request.url).pathname === '/a2a') answeredBy.push(response.headers.get('plaited-replica') ?? 'none');
      return response;
    };
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }));
    return factory.createFromUrl(balancer.origin);
  }

  async function send(client: Client, text: string, contextId: string): Promise<Task> {
    const result = await client.sendMessage(userMessage(text, { contextId }));
    if (!isTask(result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
    return result;
  }

  it('the card names nginx; a task sent through it is read and continued on the other replicas, and resubscribed on another while it streams', async () => {
    const card = (await (await fetch(`${balancer.origin}/.well-known/agent-card.json`)).json()) as { supportedInterfaces?: Array<{ url: string }>; url?: string };
    expect(JSON.stringify(card)).toContain(`${balancer.origin}/a2a`);
    const client = await throughNginx();
    const contextId = crypto.randomUUID();
    model.push({ text: 'Noted: plum.' });
    const first = await send(client, 'the code word is plum', contextId);
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const read = await client.getTask({ tenant: '', id: first.id });
    expect(messageText(read.status?.message)).toBe('Noted: plum.');
    model.push({ text: 'It was plum.' });
    const next = await send(client, 'what was the code word?', contextId);
    expect(messageText(next.status?.message)).toBe('It was plum.');
    expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain('Noted: plum.');
    // Three calls in a row, round robin: each on another replica.
    expect(new Set(answeredBy)).toEqual(new Set(ROUTES));

    const text = Array.from({ length: 60 }, (_, i) => `p${i}`).join(' ');
    model.push({ text, chunkDelayMs: 40 });
    const stream = client.sendMessageStream(userMessage('talk slowly', { contextId }))[Symbol.asyncIterator]();
    let task: Task | undefined;
    while (!task) {
      const event = await stream.next();
      if (event.done) throw new Error('the stream ended before its task');
      if (event.value.payload?.$case === 'task') task = event.value.payload.value;
    }
    const streamedOn = answeredBy.at(-1);
    const events: StreamResponse[] = [];
    for await (const event of client.resubscribeTask({ tenant: '', id: task.id })) events.push(event);
    expect(answeredBy.at(-1)).not.toBe(streamedOn);
    const last = events.at(-1)!;
    expect(eventState(last)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(last.payload?.$case === 'statusUpdate' && messageText(last.payload.value.status?.message)).toBe(text);
    // The sending stream ends too, completed.
    let end: StreamResponse | undefined;
    for (let event = await stream.next(); !event.done; event = await stream.next()) end = event.value;
    expect(end && eventState(end)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('answers /readyz through nginx from each A2A replica', async () => {
    const seen = new Set<string | null>();
    for (let index = 0; index < ROUTES.length; index++) {
      const response = await fetch(`${balancer.origin}/readyz`);
      expect([response.status, await response.text()]).toEqual([200, 'ready\n']);
      seen.add(response.headers.get('plaited-replica'));
    }
    expect(seen).toEqual(new Set(ROUTES));
  });
});
