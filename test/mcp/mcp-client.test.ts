import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient, type McpPageInfo } from '../../src/mcp/mcp-client.js';
import { McpClientError } from '../../src/mcp/mcp-client-error.js';
import { mcpServerSchema } from '../../src/config/schema.js';
import { PNG_BASE64 } from '../fixtures/mcp/fixture-catalog.mjs';
import { httpConfig, startHttpFixture, stdioConfig, type HttpFixture } from './fixture-servers.js';
import { waitFor } from '../helpers/wait-for.js';

const clients: McpClient[] = [];
function track(client: McpClient): McpClient {
  clients.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

describe('McpClient over stdio', () => {
  it('paginates every list and collects all items', async () => {
    const pages: McpPageInfo[] = [];
    const client = track(new McpClient(stdioConfig('paged', { args: ['--page-size', '2'] }), { onPaginate: (info) => pages.push(info) }));
    await client.connect();
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('whoami');
    expect(tools.length).toBeGreaterThan(10);
    const toolPages = pages.filter((page) => page.method === 'tools/list');
    expect(toolPages.length).toBe(Math.ceil(tools.length / 2));
    expect(toolPages.at(-1)?.nextCursor).toBeUndefined();
    expect((await client.listResources()).map((resource) => resource.uri)).toEqual([
      'fixture://readme',
      'fixture://logo.png',
      'fixture://changelog',
    ]);
    expect(pages.filter((page) => page.method === 'resources/list').length).toBe(2);
    expect((await client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual(['fixture://notes/{id}']);
    expect((await client.listPrompts()).map((prompt) => prompt.name)).toEqual(['greet', 'summarize', 'review']);
  });

  it('calls tools and returns structured content', async () => {
    const client = track(new McpClient(stdioConfig('calls')));
    const result = await client.callTool('add', { a: 2, b: 5 });
    expect(result.content).toEqual([{ type: 'text', text: '7' }]);
    expect(result.structuredContent).toEqual({ sum: 7 });
    expect(client.identity()?.instructions).toMatch(/fixture server/);
  });

  it('reads text and binary resources and gets prompts with arguments', async () => {
    const client = track(new McpClient(stdioConfig('res')));
    await client.connect();
    const text = await client.readResource('fixture://readme');
    expect(text.contents[0]).toMatchObject({ uri: 'fixture://readme', text: expect.stringContaining('readme') });
    const blob = await client.readResource('fixture://logo.png');
    expect(blob.contents[0]).toMatchObject({ mimeType: 'image/png', blob: PNG_BASE64 });
    const note = await client.readResource('fixture://notes/42');
    expect(note.contents[0]).toMatchObject({ text: 'note 42' });
    const prompt = await client.getPrompt('greet', { name: 'Ada', style: 'formal' });
    expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'Good day, Ada.' });
  });

  it('answers roots, sampling and elicitation through the callbacks', async () => {
    const client = track(
      new McpClient(stdioConfig('caps'), {
        roots: () => ['/tmp/project-a'],
        onSampling: async (request) => ({
          role: 'assistant',
          model: 'test-model',
          content: { type: 'text', text: `saw ${(request.messages[0].content as { text: string }).text}` },
        }),
        onElicitation: async (request) => ({ action: 'accept', content: { answer: `yes to ${request.message}` } }),
      }),
    );
    expect((await client.callTool('roots', {})).content).toEqual([{ type: 'text', text: 'file:///tmp/project-a' }]);
    expect((await client.callTool('sample', { prompt: 'hello' })).content).toEqual([{ type: 'text', text: 'model said: saw hello' }]);
    expect((await client.callTool('ask', { question: 'ok?' })).content).toEqual([
      { type: 'text', text: 'accept: {"answer":"yes to ok?"}' },
    ]);
  });

  it('reports server log messages and request/response hooks', async () => {
    const logs: unknown[] = [];
    const methods: string[] = [];
    const client = track(
      new McpClient(stdioConfig('logs'), {
        onLog: (entry) => logs.push(entry),
        onResponse: (info) => methods.push(`${info.method}${info.error ? ':error' : ''}`),
      }),
    );
    await client.callTool('log', { message: 'careful' });
    await waitFor(() => logs.some((entry) => (entry as { data: unknown }).data === 'careful'), 10_000, 'the log notification');
    expect(logs).toContainEqual({ serverId: 'logs', level: 'warning', logger: 'fixture', data: 'careful' });
    expect(methods).toContain('tools/call');
  });

  it('times out a hanging call with a typed error and keeps working', async () => {
    const client = track(new McpClient(stdioConfig('hang')));
    const error = await client.callTool('hang', {}, { timeoutMs: 300 }).catch((caught: unknown) => caught);
    expect(McpClientError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'timeout', serverId: 'hang' });
    expect((await client.callTool('echo', { text: 'still here' })).content).toEqual([{ type: 'text', text: 'echo: still here' }]);
  });

  it('answers a slow call that stays within the timeout', async () => {
    const client = track(new McpClient(stdioConfig('slow', { timeoutMs: 5_000 })));
    expect((await client.callTool('slow', { ms: 200 })).content).toEqual([{ type: 'text', text: 'slept 200' }]);
  });

  it('reconnects after the server crashes mid-call; the next call works', async () => {
    const statuses: string[] = [];
    const changed: string[] = [];
    const client = track(
      new McpClient(stdioConfig('crashy'), {
        reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
        onStatus: (status) => statuses.push(status),
        onListChanged: (kind) => changed.push(kind),
      }),
    );
    await client.connect();
    const error = await client.callTool('crash', {}).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'connection_closed', serverId: 'crashy' });
    expect((await client.callTool('echo', { text: 'back' })).content).toEqual([{ type: 'text', text: 'echo: back' }]);
    expect(statuses).toContain('reconnecting');
    expect(statuses.at(-1)).toBe('connected');
    expect(changed).toEqual(['tools', 'resources', 'prompts']);
  });

  it('fires the list_changed callback when the server adds a tool', async () => {
    const changed: string[] = [];
    const client = track(new McpClient(stdioConfig('dyn'), { onListChanged: (kind) => changed.push(kind) }));
    await client.callTool('add_tool', { name: 'brand_new' });
    await waitFor(() => changed.includes('tools'), 10_000, 'tools/list_changed');
    expect((await client.listTools()).map((tool) => tool.name)).toContain('brand_new');
  });

  it('fails to connect to a missing program with a typed error, without throwing elsewhere', async () => {
    const config = mcpServerSchema.parse({ id: 'ghost', transport: 'stdio', command: '/nonexistent/mcp-server', timeoutMs: 2_000 });
    const client = track(new McpClient(config, { reconnect: { maxAttempts: 0 } }));
    const error = await client.connect().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'connect_failed', serverId: 'ghost' });
    expect(client.status).toBe('failed');
    await expect(client.callTool('echo', { text: 'x' })).rejects.toMatchObject({ serverId: 'ghost' });
  });
});

describe('McpClient over HTTP and SSE', () => {
  let fixture: HttpFixture;
  beforeAll(async () => {
    fixture = await startHttpFixture(['--token', 'sesame']);
  });
  afterAll(async () => {
    await fixture?.stop();
  });

  it('connects over streamable HTTP, sends the bearer token and calls tools', async () => {
    const client = track(new McpClient(httpConfig('web', fixture.port, 'http', { type: 'bearer', token: 'sesame' })));
    expect((await client.listTools()).length).toBeGreaterThan(10);
    expect((await client.callTool('whoami', {})).content).toEqual([{ type: 'text', text: 'Bearer sesame' }]);
    expect((await client.readResource('fixture://logo.png')).contents[0]).toMatchObject({ blob: PNG_BASE64 });
  });

  it('connects over SSE with the bearer token', async () => {
    const client = track(new McpClient(httpConfig('legacy', fixture.port, 'sse', { type: 'bearer', token: 'sesame' })));
    expect((await client.callTool('echo', { text: 'over sse' })).content).toEqual([{ type: 'text', text: 'echo: over sse' }]);
    expect((await client.listPrompts()).map((prompt) => prompt.name)).toContain('greet');
  });

  it('takes the token from onAuth', async () => {
    const client = track(new McpClient(httpConfig('hooked', fixture.port, 'http'), { onAuth: () => 'sesame' }));
    expect((await client.callTool('whoami', {})).content).toEqual([{ type: 'text', text: 'Bearer sesame' }]);
  });

  it('refreshes a rejected token through onAuthRefresh', async () => {
    const client = track(
      new McpClient(httpConfig('refresh', fixture.port, 'http', { type: 'bearer', token: 'stale' }), {
        onAuthRefresh: () => 'sesame',
      }),
    );
    expect((await client.callTool('echo', { text: 'refreshed' })).content).toEqual([{ type: 'text', text: 'echo: refreshed' }]);
  });

  it('reports a wrong or missing token as a clear auth error', async () => {
    for (const [id, auth] of [
      ['wrong', { type: 'bearer', token: 'nope' }],
      ['missing', undefined],
    ] as const) {
      const client = track(new McpClient(httpConfig(id, fixture.port, 'http', auth), { reconnect: { maxAttempts: 0 } }));
      const error = await client.connect().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'auth_failed', serverId: id });
      expect((error as Error).message).toMatch(/credentials/);
    }
    const sse = track(new McpClient(httpConfig('sse-wrong', fixture.port, 'sse', { type: 'bearer', token: 'nope' }), { reconnect: { maxAttempts: 0 } }));
    await expect(sse.connect()).rejects.toMatchObject({ code: 'auth_failed', serverId: 'sse-wrong' });
  });

  it('stops retrying refused credentials after a short bounded backoff, and later calls fail at once', async () => {
    const statuses: string[] = [];
    const client = track(
      new McpClient(httpConfig('refused', fixture.port, 'http', { type: 'bearer', token: 'nope' }), {
        reconnect: { initialDelayMs: 10 },
        onStatus: (status) => statuses.push(status),
      }),
    );
    await expect(client.connect()).rejects.toMatchObject({ code: 'auth_failed' });
    await waitFor(() => client.status === 'failed', 5_000, 'the server marked failed');
    // Three attempts in all (8 for a failure that may pass), then no restart on a call.
    expect(statuses.filter((status) => status === 'connecting')).toHaveLength(3);
    await expect(client.callTool('echo', { text: 'x' })).rejects.toMatchObject({ code: 'not_connected' });
    expect(statuses.filter((status) => status === 'connecting')).toHaveLength(3);
  });

  it('does not start a stdio server whose command is not found; the preflight names it and marks it permanent', async () => {
    const config = mcpServerSchema.parse({ id: 'absent', transport: 'stdio', command: 'no-such-mcp-command-anywhere' });
    const { preflightMcpServer } = await import('../../src/mcp/preflight-mcp-server.js');
    const client = track(new McpClient(config, { reconnect: { initialDelayMs: 10 }, preflight: () => preflightMcpServer(config) }));
    const error = await client.connect().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'connect_failed', permanent: true, serverId: 'absent' });
    expect((error as Error).message).toContain('command "no-such-mcp-command-anywhere" was not found on PATH');
    await waitFor(() => client.status === 'failed', 5_000, 'the server marked failed');
  });
});

describe('McpClient failure modes', () => {
  it('turns an aborted call into an aborted error', async () => {
    const client = track(new McpClient(stdioConfig('abort')));
    await client.connect();
    const controller = new AbortController();
    const pending = client.callTool('hang', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ code: 'aborted', serverId: 'abort' });
    expect((await client.callTool('echo', { text: 'ok' })).content).toEqual([{ type: 'text', text: 'echo: ok' }]);
  });

  it('needs an OAuth provider for an oauth server and says so', async () => {
    const config = mcpServerSchema.parse({ id: 'oauthy', transport: 'http', url: 'http://127.0.0.1:9/mcp', auth: { type: 'oauth' } });
    const client = track(new McpClient(config, { reconnect: { maxAttempts: 0 } }));
    const error = await client.connect().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'auth_failed', serverId: 'oauthy' });
    expect((error as Error).message).toMatch(/no OAuth provider/);
  });

  it('reports an HTTP server that went away as a typed error; the process lives on', async () => {
    const fixture = await startHttpFixture();
    const client = track(new McpClient(httpConfig('gone', fixture.port, 'http'), { reconnect: { initialDelayMs: 50, maxAttempts: 2 } }));
    await client.connect();
    await fixture.stop();
    const error = await client.callTool('echo', { text: 'anyone?' }).catch((caught: unknown) => caught);
    expect(McpClientError.isInstance(error)).toBe(true);
    expect((error as McpClientError).serverId).toBe('gone');
    expect(['connection_closed', 'not_connected', 'timeout']).toContain((error as McpClientError).code);
    await waitFor(() => client.status === 'failed', 10_000, 'the client to give up');
    await expect(client.callTool('echo', { text: 'still?' })).rejects.toMatchObject({ serverId: 'gone' });
  });
});

describe('McpClient against servers that misbehave at start', () => {
  it('reports a server that exits during the handshake or prints garbage as connect_failed', async () => {
    for (const [id, script] of [
      ['quitter', 'process.exit(1)'],
      ['babbler', 'process.stdout.write("this is not json-rpc\\n"); setTimeout(() => process.exit(0), 200)'],
    ] as const) {
      const config = mcpServerSchema.parse({ id, transport: 'stdio', command: process.execPath, args: ['-e', script], timeoutMs: 3_000 });
      const client = track(new McpClient(config, { reconnect: { maxAttempts: 0 } }));
      await expect(client.connect()).rejects.toMatchObject({ code: 'connect_failed', serverId: id });
      expect(client.status).toBe('failed');
    }
  });

  it('names a server that never answers initialize, the limit, and what usually causes it', async () => {
    const client = track(new McpClient(stdioConfig('mute', { args: ['--start-delay', '60000'] }), { connectTimeoutMs: 500, reconnect: { maxAttempts: 0 } }));
    const error = await client.connect().catch((failure: unknown) => failure);
    expect(error).toMatchObject({ code: 'connect_failed', serverId: 'mute' });
    expect((error as Error).message).toContain('did not answer initialize in time: not within 500 ms');
    expect((error as Error).message).toContain('run its command by hand to see');
  });
});
