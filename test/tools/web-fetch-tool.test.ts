import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebFetchTool, hostAllowed } from '../../src/tools/web-fetch-tool.js';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import type { ToolResult } from '../../src/contracts/tool.js';
import { toolContext } from './tool-test-helpers.js';
import { waitFor } from '../helpers/wait-for.js';

let server: Server;
let base: string;
const slowResponses = new Set<import('node:http').ServerResponse>();
/** `host + path` of every request the server saw. */
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push(`${req.headers.host}${req.url}`);
      switch (req.url) {
        case '/redirect-away':
          res.writeHead(307, { location: `http://localhost:${(server.address() as AddressInfo).port}/echo` });
          res.end();
          return;
        case '/redirect-home':
          res.writeHead(302, { location: '/echo' });
          res.end();
          return;
        case '/page':
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end('<html><head><style>p{}</style></head><body><h1>Title</h1><p>Hello <b>web</b>.</p><script>var x = 1;</script></body></html>');
          return;
        case '/large':
          res.writeHead(200, { 'content-type': 'text/plain' });
          // 400 KB in 4 KB writes: only the first 50 KB should be read.
          for (let i = 0; i < 100; i++) res.write('a'.repeat(4096));
          res.end();
          return;
        case '/slow':
          // Headers, then nothing: the body never finishes in time.
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('partial');
          slowResponses.add(res);
          return;
        case '/echo':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ method: req.method, body: Buffer.concat(chunks).toString(), header: req.headers['x-test'] ?? null }));
          return;
        default:
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('no such page');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of slowResponses) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const textOf = (result: ToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

async function fetchWith(args: Record<string, unknown>, options: Parameters<typeof createWebFetchTool>[0] = {}, signal?: AbortSignal) {
  const tool = createWebFetchTool(options);
  const validated = tool.validate(args);
  if (!validated.ok) throw new Error(validated.error);
  return tool.execute(validated.value, toolContext(createLocalRuntime(process.cwd()), { signal }));
}

describe('web_fetch', () => {
  it('is an external-risk fetch tool', () => {
    const tool = createWebFetchTool();
    expect(tool).toMatchObject({ name: 'web_fetch', risk: 'external', kind: 'fetch' });
  });

  it('turns HTML into readable text without scripts or styles', async () => {
    const result = await fetchWith({ url: `${base}/page` });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain('HTTP 200');
    expect(text).toContain('TITLE');
    expect(text).toContain('Hello web.');
    expect(text).not.toContain('<p>');
    expect(text).not.toContain('var x');
  });

  it('reads at most 50 KB of a large page and says it truncated', async () => {
    const result = await fetchWith({ url: `${base}/large` });
    const text = textOf(result);
    expect(text).toContain('truncated at 51200 bytes');
    expect(text.match(/a/g)!.length).toBeLessThanOrEqual(51_200 + 10);
    expect(text.match(/a/g)!.length).toBeGreaterThanOrEqual(51_200);
  });

  it('gives up on a slow page at the timeout with a typed error', async () => {
    const result = await fetchWith({ url: `${base}/slow` }, { timeoutMs: 300 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('web_fetch failed (timeout)');
  });

  it('POSTs a body with headers', async () => {
    const result = await fetchWith({ url: `${base}/echo`, method: 'POST', body: 'payload=1', headers: { 'x-test': 'yes' } });
    expect(JSON.parse(textOf(result).split('\n\n')[1]!)).toEqual({ method: 'POST', body: 'payload=1', header: 'yes' });
  });

  it('marks HTTP errors as tool errors with the status', async () => {
    const result = await fetchWith({ url: `${base}/missing` });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('HTTP 404');
  });

  it('refuses hosts the sandbox does not allow, and non-http URLs', async () => {
    const refused = await fetchWith({ url: `${base}/page` }, { allowedHosts: ['example.com'] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('host_not_allowed');
    const allowed = await fetchWith({ url: `${base}/page` }, { allowedHosts: ['127.0.0.1'] });
    expect(allowed.isError).toBeFalsy();
    const file = await fetchWith({ url: 'file:///etc/passwd' });
    expect(textOf(file)).toContain('bad_url');
    expect(hostAllowed('api.example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('evilexample.com', ['*.example.com'])).toBe(false);
  });

  it('checks every redirect hop against the allowed hosts before requesting it', async () => {
    const away = await fetchWith({ url: `${base}/redirect-away`, method: 'POST', body: 'secret' }, { allowedHosts: ['127.0.0.1'] });
    expect(textOf(away)).toContain('host_not_allowed');
    expect(requests.filter((request) => request.startsWith('localhost'))).toEqual([]);
    const home = await fetchWith({ url: `${base}/redirect-home`, method: 'POST', body: 'payload' }, { allowedHosts: ['127.0.0.1'] });
    expect(home.isError).toBeFalsy();
    // A 302 after a POST goes on as a GET, as fetch itself does.
    expect(JSON.parse(textOf(home).split('\n\n')[1]!)).toMatchObject({ method: 'GET', body: '' });
  });

  it('stops when the turn is cancelled', async () => {
    const controller = new AbortController();
    const before = slowResponses.size;
    const pending = fetchWith({ url: `${base}/slow` }, {}, controller.signal).catch((error: unknown) => error);
    // Cancelled once the server is answering (headers sent, the body still open).
    await waitFor(() => slowResponses.size > before, 10_000, 'the slow page to be requested');
    controller.abort();
    const outcome = await pending;
    expect(outcome instanceof Error || (outcome as ToolResult).isError).toBe(true);
  });
});
