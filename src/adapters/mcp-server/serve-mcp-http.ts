import { randomUUID } from 'node:crypto';
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpServer } from '@modelcontextprotocol/server';
import { LOCAL_PRINCIPAL } from '../../agent/owned-sessions.js';
import { createNetworkAuth, type NetworkAuth } from '../http/network-auth.js';
import { misroutedMessage, routeOf } from '../http/replica-id.js';
import { serveHttpCore, type HttpCore } from '../http/serve-http-core.js';
import { unauthorizedResponse } from '../http/unauthorized-response.js';
import { jsonRpcLimits, type JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { guardMcpHttpRequest, withRequestId } from './guard-mcp-http-request.js';
import { internalErrorMessage } from '../internal-error-message.js';
import { explainMcpInternalError, explainMcpResponse } from './explain-mcp-internal-error.js';
import { invalidParamsFromSchema } from './invalid-params-from-schema.js';
import { McpAdapterError } from './mcp-adapter-error.js';
import { McpHttpSessions } from './mcp-http-sessions.js';

/** A 404 (the spec's signal to start over) that says so to a host's developer too. */
const SESSION_NOT_FOUND =
  'Session not found: this server holds no session with that Mcp-Session-Id (it restarted, the session was deleted or idled out, or it never existed); send initialize again, without Mcp-Session-Id, to open a new one. The agent sessions themselves are kept: list_sessions finds them';

const MCP_HTTP_PATH = '/mcp';

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
  /** Limits on one request body (default 32 MiB, 128 levels). */
  limits?: Partial<JsonRpcLimits>;
  /** Told about refused bodies. */
  warn?: (message: string) => void;
  /** Who may call; default: a bearer token from `authToken`, generated (and logged to `log`) when absent. */
  auth?: NetworkAuth;
  authToken?: string;
  /** No authentication: only with a loopback host. */
  noAuth?: boolean;
  log?: (message: string) => void;
  /** This replica's route name: the prefix of its `Mcp-Session-Id`s, which a balancer routes by (default: host name and port). */
  replicaId?: string;
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
  const limits = jsonRpcLimits(options.limits);
  const sessions = new McpHttpSessions(options.sessionIdleMs ?? 30 * 60_000);
  let core: HttpCore | undefined;
  const replica = () => core?.replicaId ?? options.replicaId ?? '';
  // The principal travels to the per-request factory as the request's auth info.
  const modern = createMcpHandler((ctx) => factory(ctx.authInfo?.clientId ?? LOCAL_PRINCIPAL), { legacy: 'reject', onerror: options.onError });

  const openSession = async (request: Request, principal: string): Promise<Response> => {
    const server = await factory(principal);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      // `<replica>.<uuid>`: a balancer sends the session's requests to the replica that holds it.
      sessionIdGenerator: () => `${replica()}.${randomUUID()}`,
      onsessioninitialized: (id) => sessions.add(id, transport, server, principal),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    // The SDK answers params that fail its schema as -32603; they are -32602. A handler's
    // unexpected exception is answered naming its cause and what to do.
    const send = transport.send.bind(transport);
    transport.send = (message, sendOptions) => send(explainMcpInternalError(invalidParamsFromSchema(message), options.warn), sendOptions);
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

  const handle = async (incoming: Request, principal: string): Promise<Response> => {
    // Size, depth and envelope are checked before the SDK reads the body.
    const guarded = await guardMcpHttpRequest(incoming, limits, options.warn);
    if ('response' in guarded) return guarded.response;
    let response: Response;
    try {
      response = await route(guarded.request, principal);
    } catch (error) {
      // Answered with the request's id (withRequestId), in JSON-RPC's shape; the process goes on.
      options.warn?.(`mcp: a request failed: ${(error as Error).message}`);
      response = jsonError(500, -32603, internalErrorMessage(error));
    }
    return withRequestId(guarded.text, response);
  };

  const route = async (request: Request, principal: string): Promise<Response> => {
    if (!(await isLegacyRequest(request))) {
      // The SDK's per-request handler answers a handler's exception as bare as a session does.
      return explainMcpResponse(await modern.fetch(request, { authInfo: { token: '', clientId: principal, scopes: [] } }), options.warn);
    }
    const sessionId = request.headers.get('mcp-session-id');
    const misrouted = sessionId ? misroutedSession(sessionId, replica(), options.warn) : undefined;
    if (misrouted) return misrouted;
    if (sessionId) {
      // Another principal's session is answered as unknown: its existence is not revealed.
      return (await sessions.handle(sessionId, request, principal)) ?? jsonError(404, -32001, SESSION_NOT_FOUND);
    }
    if (request.method !== 'POST') return jsonError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return openSession(request, principal);
  };

  core = await serveHttpCore({
    host,
    port: options.port,
    auth,
    allowedOrigins: options.allowedOrigins,
    faces: [{ paths: [MCP_HTTP_PATH], fetch: (request, principal) => handle(request, principal!), unauthorized: () => unauthorizedResponse() }],
    forbidden: (reason) => jsonError(403, -32000, `Forbidden: ${reason}`),
    notFound: () => jsonError(404, -32601, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`),
    failed: (error) => jsonError(500, -32603, internalErrorMessage(error)),
    warn: options.warn,
    listenError: (error) => new McpAdapterError('http_listen_failed', `cannot listen on ${host}:${options.port}: ${error.message}`, { cause: error }),
    ...(options.replicaId === undefined ? {} : { replicaId: options.replicaId }),
  });
  return {
    url: `${core.origin}${MCP_HTTP_PATH}`,
    port: core.port,
    sessions: () => sessions.size,
    closed: core.closed,
    async close() {
      await modern.close().catch(() => undefined);
      await sessions.closeAll();
      await core!.close();
    },
  };
}

/** A session id of another replica (`<replica>.<uuid>`): refused 421, naming the balancer's routing rule. */
function misroutedSession(sessionId: string, replica: string, warn: ((message: string) => void) | undefined): Response | undefined {
  const route = routeOf(sessionId);
  if (route === undefined || route === replica) return undefined;
  warn?.(`mcp: refused a request for a session of replica "${route}" (this is "${replica}"): the balancer must route by the Mcp-Session-Id prefix`);
  return jsonError(421, -32001, misroutedMessage('Mcp-Session-Id', route, replica));
}

function jsonError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
