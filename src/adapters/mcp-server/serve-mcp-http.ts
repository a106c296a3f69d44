import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpServer } from '@modelcontextprotocol/server';
import { LOCAL_PRINCIPAL } from '../../agent/owned-sessions.js';
import { createHostOriginCheck, serverOrigin } from '../http/host-origin-check.js';
import { createNetworkAuth, type NetworkAuth } from '../http/network-auth.js';
import { requestPrincipal } from '../http/request-principal.js';
import { unauthorizedResponse } from '../http/unauthorized-response.js';
import { McpAdapterError } from './mcp-adapter-error.js';
import { McpHttpSessions } from './mcp-http-sessions.js';
import { toNodeHandler } from './node-request-bridge.js';

export interface McpHttpOptions {
  /** Bind address; 127.0.0.1 by default. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Extra Origin hostnames browsers may call from (localhost ones are always allowed). */
  allowedOrigins?: readonly string[];
  /** A 2025-era session with no request and nothing streaming for this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Where out-of-band transport errors go (stderr in the CLI). */
  onError?: (error: Error) => void;
  /** Who may call; default: a bearer token from `authToken`, generated (and logged to `log`) when absent. */
  auth?: NetworkAuth;
  authToken?: string;
  /** No authentication: only with a loopback host. */
  noAuth?: boolean;
  log?: (message: string) => void;
}

/** Builds the MCP server instance a request is served by, for the principal it speaks for. */
export type McpServerFactoryFor = (principal: string) => McpServer | Promise<McpServer>;

export interface McpHttpServer {
  /** `http://host:port/mcp` */
  url: string;
  port: number;
  /** Open 2025-era sessions. */
  sessions(): number;
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Streamable HTTP at `/mcp`, safe by default: bound to 127.0.0.1, Host and Origin checked
 * against DNS rebinding, every request authenticated by a bearer token; a 2025-era session
 * answers only the principal that opened it. 2025-era hosts (every MCP host today) get a stateful session per
 * `initialize`, so progress, cancellation, elicitation and sampling work inside a call;
 * 2026-07-28 requests go to the SDK's per-request handler.
 */
export async function serveMcpHttp(factory: McpServerFactoryFor, options: McpHttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const auth = options.auth ?? createNetworkAuth({ host, token: options.authToken, noAuth: options.noAuth, log: options.log });
  const checkHostOrigin = createHostOriginCheck({ host, allowedOrigins: options.allowedOrigins });
  const sessions = new McpHttpSessions(options.sessionIdleMs ?? 30 * 60_000);
  // The principal travels to the per-request factory as the request's auth info.
  const modern = createMcpHandler((ctx) => factory(ctx.authInfo?.clientId ?? LOCAL_PRINCIPAL), { legacy: 'reject', onerror: options.onError });

  const openSession = async (request: Request, principal: string): Promise<Response> => {
    const server = await factory(principal);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.add(id, transport, server, principal),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      if (transport.sessionId) return sessions.track(transport.sessionId, response);
      // Not a successful initialize (the answer is an error): no session holds this instance.
      await server.close().catch(() => undefined);
      return response;
    } catch (error) {
      await server.close().catch(() => undefined);
      throw error;
    }
  };

  const handle = async (request: Request): Promise<Response> => {
    const rejected = checkHostOrigin({ host: request.headers.get('host'), origin: request.headers.get('origin') });
    if (rejected) return jsonError(403, -32000, `Forbidden: ${rejected}`);
    if (new URL(request.url).pathname !== '/mcp') return jsonError(404, -32601, 'Not found: the MCP endpoint is /mcp');
    const principal = requestPrincipal(auth, { authorization: request.headers.get('authorization') });
    if (principal === undefined) return unauthorizedResponse();
    if (!(await isLegacyRequest(request))) return modern.fetch(request, { authInfo: { token: '', clientId: principal, scopes: [] } });
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      // Another principal's session is answered as unknown: its existence is not revealed.
      return (await sessions.handle(sessionId, request, principal)) ?? jsonError(404, -32001, 'Session not found');
    }
    if (request.method !== 'POST') return jsonError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return openSession(request, principal);
  };

  const http: HttpServer = createServer(toNodeHandler(handle));
  // Idle keep-alive sockets outlive the clients' own pool timeouts, so a client never
  // reuses a socket the server is closing at that moment (a spurious "other side closed").
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  await new Promise<void>((ready, fail) => {
    http.once('error', (error) => fail(new McpAdapterError('http_listen_failed', `cannot listen on ${host}:${options.port}: ${error.message}`, { cause: error })));
    http.listen(options.port, host, () => ready());
  });
  const port = (http.address() as AddressInfo).port;
  const closed = new Promise<void>((done) => http.once('close', () => done()));
  return {
    url: `${serverOrigin(host, port)}/mcp`,
    port,
    sessions: () => sessions.size,
    closed,
    async close() {
      await modern.close().catch(() => undefined);
      await sessions.closeAll();
      http.closeAllConnections();
      await new Promise<void>((done) => http.close(() => done()));
    },
  };
}

function jsonError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
