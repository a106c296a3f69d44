import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { HttpFace } from '../../../src/adapters/http/http-face.js';
import { LOCAL_PRINCIPAL, createNetworkAuth } from '../../../src/adapters/http/network-auth.js';
import { serveHttpCore, type HttpCore } from '../../../src/adapters/http/serve-http-core.js';

const TOKEN = 'a-long-enough-test-token-0123456789';
const cores: HttpCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
});

/** Two faces on one core: a protected one that echoes its principal and takes upgrades, and a public one. */
async function start(): Promise<{ core: HttpCore; seen: Array<string | undefined> }> {
  const seen: Array<string | undefined> = [];
  const sockets = new WebSocketServer({ noServer: true });
  const echo: HttpFace = {
    paths: ['/echo', '/echo/*'],
    unauthorized: () => new Response('who are you?', { status: 401 }),
    fetch: (request, principal) => {
      seen.push(principal);
      return new Response(`${principal} ${new URL(request.url).pathname}`);
    },
    upgrade: ({ req, socket, head }, principal) => sockets.handleUpgrade(req, socket, head, (webSocket) => webSocket.send(`hello ${principal}`)),
  };
  const card: HttpFace = { paths: ['/card'], public: true, unauthorized: () => new Response(null, { status: 500 }), fetch: (_, principal) => new Response(`card for ${String(principal)}`) };
  const core = await serveHttpCore({
    host: '127.0.0.1',
    port: 0,
    auth: createNetworkAuth({ host: '127.0.0.1', token: TOKEN }),
    faces: [echo, card],
    forbidden: (reason) => new Response(`forbidden: ${reason}`, { status: 403 }),
    notFound: () => new Response('no such face', { status: 404 }),
    failed: () => new Response(null, { status: 500 }),
  });
  cores.push(core);
  return { core, seen };
}

const upgrade = (url: string, options: WebSocket.ClientOptions, protocols?: string[]) =>
  new Promise<{ status?: number; message?: string }>((done) => {
    const socket = new WebSocket(url, protocols, options);
    socket.once('message', (data) => {
      done({ message: String(data) });
      socket.close();
    });
    socket.once('unexpected-response', (_, response) => done({ status: response.statusCode }));
    socket.once('error', () => undefined);
  });

describe('the HTTP core: one Host/Origin guard and one auth for every face, requests and upgrades alike', () => {
  it('guards, authenticates and routes every request before a face sees it', async () => {
    const { core, seen } = await start();
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect(await (await fetch(`${core.origin}/echo/x`, { headers: auth })).text()).toBe(`${LOCAL_PRINCIPAL} /echo/x`);
    expect((await fetch(`${core.origin}/echo`)).status).toBe(401);
    // The WebSocket credential does not count on a plain request.
    expect((await fetch(`${core.origin}/echo`, { headers: { 'sec-websocket-protocol': `bearer.${TOKEN}` } })).status).toBe(401);
    const foreign = await fetch(`${core.origin}/echo`, { headers: { ...auth, origin: 'http://evil.example.com' } });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toMatch(/^forbidden: /);
    // A public face needs no token, but the guard still applies.
    expect(await (await fetch(`${core.origin}/card`)).text()).toBe('card for undefined');
    expect((await fetch(`${core.origin}/card`, { headers: { origin: 'http://evil.example.com' } })).status).toBe(403);
    expect((await fetch(`${core.origin}/elsewhere`, { headers: auth })).status).toBe(404);
    expect(seen).toEqual([LOCAL_PRINCIPAL]);
  });

  it('admits an upgrade with the bearer header or subprotocol and refuses the rest on the socket', async () => {
    const { core } = await start();
    const ws = core.origin.replace(/^http/, 'ws');
    expect(await upgrade(`${ws}/echo`, { headers: { authorization: `Bearer ${TOKEN}` } })).toEqual({ message: `hello ${LOCAL_PRINCIPAL}` });
    expect(await upgrade(`${ws}/echo`, {}, ['acp', `bearer.${TOKEN}`])).toEqual({ message: `hello ${LOCAL_PRINCIPAL}` });
    expect(await upgrade(`${ws}/echo`, {})).toEqual({ status: 401 });
    expect(await upgrade(`${ws}/echo`, { headers: { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example.com' } })).toEqual({ status: 403 });
    expect(await upgrade(`${ws}/nowhere`, { headers: { authorization: `Bearer ${TOKEN}` } })).toEqual({ status: 404 });
    expect(await upgrade(`${ws}/card`, {})).toEqual({ status: 426 });
  });
});

describe('the HTTP core when a face throws', () => {
  it('hands the error and the request to the faces\' `failed` answer, reports it, and serves the next request', async () => {
    const warnings: string[] = [];
    let calls = 0;
    const flaky: HttpFace = {
      paths: ['/flaky'],
      unauthorized: () => new Response(null, { status: 401 }),
      fetch: () => {
        if (++calls === 1) throw Object.assign(new Error('the store is read-only'), { code: 'SQLITE_READONLY' });
        return new Response('fine');
      },
    };
    const core = await serveHttpCore({
      host: '127.0.0.1',
      port: 0,
      auth: createNetworkAuth({ host: '127.0.0.1', token: TOKEN }),
      faces: [flaky],
      forbidden: () => new Response(null, { status: 403 }),
      notFound: () => new Response(null, { status: 404 }),
      failed: (error, request) => Response.json({ cause: error.message, code: (error as { code?: string }).code, path: request && new URL(request.url).pathname }, { status: 500 }),
      warn: (message) => warnings.push(message),
    });
    cores.push(core);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const failed = await fetch(`${core.origin}/flaky`, { headers: auth });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ cause: 'the store is read-only', code: 'SQLITE_READONLY', path: '/flaky' });
    expect(warnings).toEqual(['http: a request failed: the store is read-only']);
    expect(await (await fetch(`${core.origin}/flaky`, { headers: auth })).text()).toBe('fine');
  });
});
