import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createAgent } from '../../../src/agent/create-agent.js';
import { configSchema } from '../../../src/config/schema.js';
import { serveAcpHttp, type AcpHttpServer } from '../../../src/adapters/acp/acp-http-server.js';
import { defaultReplicaId } from '../../../src/adapters/http/replica-id.js';
import { scriptedModel } from '../../helpers/scripted-mock-model.js';
import { TEST_AUTH_HEADERS, TEST_AUTH_TOKEN } from '../../helpers/test-auth-token.js';
import { connectAcpHttp, initializeHttp, textOf, type SeenResponse } from './acp-http-client.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(replicaId: string | undefined, replies: Parameters<typeof scriptedModel>[0] = []): Promise<{ server: AcpHttpServer; cwd: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-acp-route-'));
  const agent = createAgent({ config: configSchema.parse({ agent: { stateDb: join(cwd, 'state.db') } }), model: scriptedModel(replies), tools: [] });
  const server = await serveAcpHttp(agent, { port: 0, authToken: TEST_AUTH_TOKEN, ...(replicaId === undefined ? {} : { replicaId }) });
  cleanups.push(() => agent.stop(), () => server.close());
  return { server, cwd };
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });

async function initialize(url: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...TEST_AUTH_HEADERS, 'content-type': 'application/json' }, body: INITIALIZE });
}

describe('ACP over HTTP: connection ids name the replica that holds them', () => {
  it('hands out <replica>.<id>, names itself in Plaited-Replica, and serves the SDK client on that id (POSTs and SSE streams)', async () => {
    const { server, cwd } = await serve('replica-a', [{ text: 'routed fine' }]);
    const response = await initialize(server.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('acp-connection-id')).toMatch(/^replica-a\.[^.]+/);
    expect(response.headers.get('plaited-replica')).toBe('replica-a');
    await response.body?.cancel();

    const seen: SeenResponse[] = [];
    const client = connectAcpHttp(server.url, { onResponse: (answer) => seen.push(answer) });
    cleanups.push(() => client.close());
    await initializeHttp(client);
    const { sessionId } = await client.agent.request('session/new', { cwd, mcpServers: [] });
    expect((await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).stopReason).toBe('end_turn');
    expect(textOf(client, sessionId)).toBe('routed fine');
    const later = seen.filter((answer) => answer.connectionId !== null);
    expect(later.map((answer) => answer.method)).toEqual(expect.arrayContaining(['POST', 'GET']));
    for (const answer of later) expect(answer.connectionId).toMatch(/^replica-a\./);
    expect(new Set(seen.map((answer) => answer.replica))).toEqual(new Set(['replica-a']));
  });

  it("answers a request carrying another replica's connection id with a JSON-RPC error naming the balancer's routing, not a bare not-found", async () => {
    const { server: a } = await serve('replica-a');
    const { server: b } = await serve('replica-b');
    const opened = await initialize(a.url);
    const id = opened.headers.get('acp-connection-id')!;
    await opened.body?.cancel();

    const headers = { ...TEST_AUTH_HEADERS, 'content-type': 'application/json', 'acp-connection-id': id };
    const post = await fetch(b.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'session/list', params: {} }) });
    expect(post.status).toBe(421);
    const body = (await post.json()) as { id: unknown; error: { code: number; message: string; data: unknown } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32001);
    expect(body.error.message).toContain('belongs to replica "replica-a", but the request reached replica "replica-b"');
    expect(body.error.message).toMatch(/route every request that carries an Acp-Connection-Id to the replica named by its prefix/);
    expect(body.error.data).toEqual({ code: 'connection_misrouted', connectionReplica: 'replica-a', replica: 'replica-b' });

    const stream = await fetch(b.url, { headers: { ...headers, accept: 'text/event-stream' } });
    expect(stream.status).toBe(421);
    expect(((await stream.json()) as { error: { data: { code: string } } }).error.data.code).toBe('connection_misrouted');
    const remove = await fetch(b.url, { method: 'DELETE', headers });
    expect(remove.status).toBe(421);
    await remove.body?.cancel();

    // The id still works on its own replica, which strips the prefix before the SDK sees it.
    const own = await fetch(a.url, { method: 'DELETE', headers });
    expect(own.status).toBe(202);
    await own.body?.cancel();
  });

  it('defaults the route name to the host name and port, and names it on health checks and WebSocket upgrades', async () => {
    const { server } = await serve(undefined);
    expect(server.replicaId).toBe(defaultReplicaId(hostname(), server.port));
    expect(server.replicaId).toMatch(/^[a-z0-9_-]+-\d+$/);
    const health = await fetch(new URL('/healthz', server.url));
    expect(health.headers.get('plaited-replica')).toBe(server.replicaId);
    await health.body?.cancel();
    const upgraded = await new Promise<string | undefined>((resolve, reject) => {
      const socket = new WebSocket(server.url.replace(/^http/, 'ws'), { headers: TEST_AUTH_HEADERS });
      socket.once('upgrade', (response) => resolve(response.headers['plaited-replica'] as string | undefined));
      socket.once('error', reject);
      cleanups.push(() => socket.close());
    });
    expect(upgraded).toBe(server.replicaId);
  });

  it('refuses to start with a route name a balancer could not route by', async () => {
    const agent = createAgent({ config: configSchema.parse({ agent: { stateDb: join(mkdtempSync(join(tmpdir(), 'plaited-acp-route-')), 'state.db') } }), model: scriptedModel([]), tools: [] });
    cleanups.push(() => agent.stop());
    await expect(serveAcpHttp(agent, { port: 0, authToken: TEST_AUTH_TOKEN, replicaId: 'web.1' })).rejects.toMatchObject({ code: 'invalid_replica_id', message: expect.stringMatching(/no "\."/) });
  });
});
