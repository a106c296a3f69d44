import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/agent/create-agent.js';
import type { Agent } from '../../../src/agent/agent.js';
import { configSchema } from '../../../src/config/schema.js';
import { serveAcpHttp, type AcpHttpServer } from '../../../src/adapters/acp/acp-http-server.js';
import { scriptedModel } from '../../helpers/scripted-mock-model.js';
import { TEST_AUTH_HEADERS, TEST_AUTH_TOKEN } from '../../helpers/test-auth-token.js';
import { waitFor } from '../../helpers/wait-for.js';
import { connectAcpHttp, initializeHttp, textOf, type AcpHttpClient, type AcpHttpClientOptions } from './acp-http-client.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(model: MockLanguageModelV3, idleTimeoutMs: number): Promise<{ server: AcpHttpServer; cwd: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-acp-http-unit-'));
  const agent: Agent = createAgent({ config: configSchema.parse({ agent: { stateDb: join(cwd, 'state.db') } }), model, tools: [] });
  const server = await serveAcpHttp(agent, { port: 0, idleTimeoutMs, authToken: TEST_AUTH_TOKEN });
  cleanups.push(() => agent.stop(), () => server.close());
  return { server, cwd };
}

function client(url: string, options: AcpHttpClientOptions = {}): AcpHttpClient {
  const connected = connectAcpHttp(url, options);
  cleanups.push(() => connected.close());
  return connected;
}

describe('serveAcpHttp: idle connections', () => {
  it('a quiet turn longer than the idle timeout is not cut off; the connection closes once idle', async () => {
    // The model stays silent until the test releases it: no message moves while the prompt request is open.
    const answer = scriptedModel([{ text: 'worth the wait' }]);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let streaming!: () => void;
    const started = new Promise<void>((resolve) => (streaming = resolve));
    const slow = new MockLanguageModelV3({
      doStream: async (options) => {
        streaming();
        await released;
        return answer.doStream(options);
      },
    });
    // Long enough that the client's own setup requests never look idle on a loaded machine.
    const { server, cwd } = await serve(slow, 1_000);
    const acp = client(server.url);
    await initializeHttp(acp);
    const { sessionId } = await acp.agent.request('session/new', { cwd, mcpServers: [] });
    const responding = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'take your time' }] });
    await started;
    // A second client, quiet since after the prompt was sent: once the idle timeout has closed
    // it, the turn has been silent longer than the timeout too.
    const idle = client(server.url, { transport: 'websocket' });
    await initializeHttp(idle);
    expect(server.connections()).toBe(2);
    await waitFor(() => server.connections() < 2, 10_000, 'the idle connection to close');
    release();
    const response = await responding;
    expect(response.stopReason).toBe('end_turn');
    expect(textOf(acp, sessionId)).toBe('worth the wait');
    expect(server.connections()).toBe(1);

    await waitFor(() => server.connections() === 0, 10_000, 'the connection to close once idle');
    expect(acp.validator.errors).toEqual([]);
  });

  it('counts each client as its own connection', async () => {
    const { server } = await serve(scriptedModel([]), 60_000);
    const first = client(server.url);
    const second = client(server.url);
    await Promise.all([initializeHttp(first), initializeHttp(second)]);
    expect(server.connections()).toBe(2);
  });

  it('rejects requests whose Host is not local (DNS rebinding) and paths other than /acp', async () => {
    const { server } = await serve(scriptedModel([]), 60_000);
    const { port } = server;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    const raw = await rawPost(port, '/acp', { host: `evil.example.com:${port}` }, body);
    expect(raw.status).toBe(403);
    const wrongPath = await rawPost(port, '/other', { host: `127.0.0.1:${port}` }, body);
    expect(wrongPath.status).toBe(404);
    const local = await rawPost(port, '/acp', { host: `localhost:${port}` }, body);
    expect(local.status).toBe(200);
  });
});

/** fetch() cannot set Host, so this goes through node:http. */
async function rawPost(port: number, path: string, headers: Record<string, string>, body: string): Promise<{ status: number }> {
  const { request } = await import('node:http');
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', ...TEST_AUTH_HEADERS, ...headers } }, (res) => {
      res.resume();
      done({ status: res.statusCode ?? 0 });
    });
    req.on('error', fail);
    req.end(body);
  });
}
