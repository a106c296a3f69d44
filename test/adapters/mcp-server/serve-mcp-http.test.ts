import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/agent/create-agent.js';
import { configSchema } from '../../../src/config/schema.js';
import { createAgentMcpServer } from '../../../src/adapters/mcp-server/create-agent-mcp-server.js';
import { serveMcpHttp, type McpHttpServer } from '../../../src/adapters/mcp-server/serve-mcp-http.js';
import { TEST_AUTH_HEADERS, TEST_AUTH_TOKEN } from '../../helpers/test-auth-token.js';
import { scriptedModel } from '../../helpers/scripted-mock-model.js';
import { waitFor } from '../../helpers/wait-for.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(sessionIdleMs: number): Promise<McpHttpServer> {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-mcp-http-unit-'));
  const agent = createAgent({ config: configSchema.parse({ agent: { stateDb: join(cwd, 'state.db') } }), model: scriptedModel([]), tools: [] });
  const server = await serveMcpHttp(() => createAgentMcpServer(agent, { cwd, skills: [] }), { port: 0, sessionIdleMs, authToken: TEST_AUTH_TOKEN });
  cleanups.push(() => agent.stop(), () => server.close());
  return server;
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...TEST_AUTH_HEADERS };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'vanishing-host', version: '1' } },
});

describe('serveMcpHttp: 2025-era sessions', () => {
  it('closes the session of a host that vanished without DELETE', async () => {
    const server = await serve(200);
    const opened = await fetch(server.url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
    const sessionId = opened.headers.get('mcp-session-id');
    expect(sessionId).toBeTruthy();
    await opened.text(); // read to the end: nothing streams any more
    expect(server.sessions()).toBe(1);

    await waitFor(() => server.sessions() === 0, 10_000, 'the session to be swept');
    const late = await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(late.status).toBe(404);
  });

  it('keeps a connected host: its open SSE stream counts as activity', async () => {
    // Long enough that the host's own handshake (two requests) never looks idle on a loaded machine.
    const server = await serve(1_000);
    const client = new Client({ name: 'live-host', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: TEST_AUTH_HEADERS } }));
    cleanups.push(() => client.close());
    // A host that vanishes after the live one connected: once its session is swept as idle,
    // the live host has been quiet at least as long, so only its open SSE stream kept it.
    const opened = await fetch(server.url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
    const vanished = opened.headers.get('mcp-session-id');
    await opened.text();
    expect(server.sessions()).toBe(2);
    await waitFor(() => server.sessions() < 2, 10_000, 'the vanished host’s session to be swept');
    expect(server.sessions()).toBe(1);
    const probe = await fetch(server.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': vanished!, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(probe.status).toBe(404);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('prompt');
  });
});

describe('serveMcpHttp behind a balancer', () => {
  it("hands out Mcp-Session-Id <replica>.<uuid>, serves it, and answers another replica's id with the misrouting error", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-mcp-http-route-'));
    const agent = createAgent({ config: configSchema.parse({ agent: { stateDb: join(cwd, 'state.db') } }), model: scriptedModel([]), tools: [] });
    const a = await serveMcpHttp(() => createAgentMcpServer(agent, { cwd, skills: [] }), { port: 0, authToken: TEST_AUTH_TOKEN, replicaId: 'replica-a' });
    const b = await serveMcpHttp(() => createAgentMcpServer(agent, { cwd, skills: [] }), { port: 0, authToken: TEST_AUTH_TOKEN, replicaId: 'replica-b' });
    cleanups.push(() => agent.stop(), () => a.close(), () => b.close());
    const opened = await fetch(a.url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
    const sessionId = opened.headers.get('mcp-session-id')!;
    expect(sessionId).toMatch(/^replica-a\.[0-9a-f-]{36}$/);
    expect(opened.headers.get('plaited-replica')).toBe('replica-a');
    await opened.text();

    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const headers = { ...HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const own = await fetch(a.url, { method: 'POST', headers, body: list });
    expect(own.status).toBe(200);
    await own.text();
    const elsewhere = await fetch(b.url, { method: 'POST', headers, body: list });
    expect(elsewhere.status).toBe(421);
    const body = (await elsewhere.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32001);
    expect(body.error.message).toContain('this Mcp-Session-Id belongs to replica "replica-a", but the request reached replica "replica-b"');
    expect(body.error.message).toContain('route every request that carries an Mcp-Session-Id to the replica named by its prefix');
  });
});
