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
import { connectAcpHttp, initializeHttp, textOf, type AcpHttpClient } from './acp-http-client.js';

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

function client(url: string): AcpHttpClient {
  const connected = connectAcpHttp(url);
  cleanups.push(() => connected.close());
  return connected;
}

const sleep = (ms: number) => new Promise((wait) => setTimeout(wait, ms));

describe('serveAcpHttp: idle connections', () => {
  it('a quiet turn longer than the idle timeout is not cut off; the connection closes once idle', async () => {
    // The model answers after 1 s of silence: no message moves while the prompt request is open.
    const answer = scriptedModel([{ text: 'worth the wait' }]);
    const slow = new MockLanguageModelV3({
      doStream: async (options) => {
        await sleep(1_000);
        return answer.doStream(options);
      },
    });
    const { server, cwd } = await serve(slow, 300);
    const acp = client(server.url);
    await initializeHttp(acp);
    const { sessionId } = await acp.agent.request('session/new', { cwd, mcpServers: [] });
    const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'take your time' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(textOf(acp, sessionId)).toBe('worth the wait');
    expect(server.connections()).toBe(1);

    const deadline = Date.now() + 10_000;
    while (server.connections() > 0 && Date.now() < deadline) await sleep(50);
    expect(server.connections()).toBe(0);
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
