import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2A_VERSION_HEADER, AGENT_CARD_PATH, AgentCard, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION, LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  defaultServerCallContextBuilder,
  validateVersion,
  type AgentExecutor,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { createHostOriginCheck, serverOrigin } from '../http/host-origin-check.js';
import type { NetworkAuth } from '../http/network-auth.js';
import { requestPrincipal } from '../http/request-principal.js';
import { BEARER_CHALLENGE, UNAUTHORIZED_CODE } from '../http/unauthorized-response.js';
import { jsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { A2A_RPC_PARAMS } from './a2a-request-schemas.js';
import { checkA2aParams } from './check-a2a-params.js';
import { clipForLog } from './clip-for-log.js';
import { buildAgentCard, type AgentCardInput } from './build-agent-card.js';
import { A2aPrincipal } from './a2a-principal.js';
import { legacyAgentCard } from './legacy-agent-card.js';
import { readJsonBody } from './read-json-body.js';
import { A2A_REST_PATH } from './rest-routes.js';
import { serveRestRequest } from './serve-rest-request.js';
import { RestHttpError, writeRestError } from './write-rest-result.js';
import { writeRpcResult } from './write-rpc-result.js';

export const A2A_RPC_PATH = '/a2a';
const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
const CARD_PATH = `/${AGENT_CARD_PATH}`;
const UNAUTHORIZED_MESSAGE = 'Unauthorized: send "Authorization: Bearer <token>" (printed to stderr at start, or set with --auth-token / PLAITED_AUTH_TOKEN)';

export interface A2aHttpOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Accept on this inherited listening socket instead of binding `host:port` (the sandboxed child). */
  listenFd?: number;
  auth: NetworkAuth;
  executor: AgentExecutor;
  taskStore: TaskStore;
  card: Omit<AgentCardInput, 'url' | 'bearerAuth'>;
  allowedOrigins?: readonly string[];
  /** Largest request body accepted (bytes); default 16 MiB. */
  maxMessageBytes?: number;
  /** Deepest nesting of arrays/objects in a body; default 128, as on the ACP face. */
  maxJsonDepth?: number;
  log?: (message: string) => void;
}

export interface A2aHttpServer {
  /** The JSON-RPC endpoint. */
  url: string;
  /** The base URL of the HTTP+JSON (REST) binding. */
  restUrl: string;
  /** Where the agent card is served. */
  cardUrl: string;
  port: number;
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * A2A over JSON-RPC on plain `node:http`, with the SDK's transport-agnostic
 * `JsonRpcTransportHandler` (protocol 1.0) and `LegacyJsonRpcTransportHandler` (0.3,
 * chosen by the `A2A-Version` header as the SDK's own Express router does), and A2A 1.0
 * HTTP+JSON under {@link A2A_REST_PATH} on the same request handler. The agent card is public;
 * every call needs the network bearer token.
 */
export async function serveA2aHttp(options: A2aHttpOptions): Promise<A2aHttpServer> {
  const checkHostOrigin = createHostOriginCheck({ host: options.host, allowedOrigins: options.allowedOrigins });
  const limits = jsonRpcLimits({ maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_BODY_BYTES, maxDepth: options.maxJsonDepth });
  let rpc: { v1: JsonRpcTransportHandler; legacy: LegacyJsonRpcTransportHandler; handler: DefaultRequestHandler } | undefined;
  let cardJson = '';
  let legacyCardJson = '';

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = checkHostOrigin({ host: req.headers.host, origin: req.headers.origin });
    if (refused) return plain(res, 403, refused);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (path === CARD_PATH) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'the agent card is read with GET', { allow: 'GET, HEAD' });
      // Which shape depends on the version asked for, as with the RPCs: none means 0.3.
      const legacyCard = (header(req, A2A_VERSION_HEADER) ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache', vary: A2A_VERSION_HEADER });
      return void res.end(req.method === 'HEAD' ? undefined : legacyCard ? legacyCardJson : cardJson);
    }
    if (path.startsWith(`${A2A_REST_PATH}/`)) {
      const principal = requestPrincipal(options.auth, { authorization: req.headers.authorization });
      if (principal === undefined) return writeRestError(res, new RestHttpError(401, 'UNAUTHENTICATED', UNAUTHORIZED_MESSAGE, { 'www-authenticate': BEARER_CHALLENGE }));
      return serveRestRequest(req, res, { handler: rpc!.handler, principal, path: path.slice(A2A_REST_PATH.length), query: url.searchParams, limits, log: options.log });
    }
    if (path !== A2A_RPC_PATH) return plain(res, 404, `Not found: the A2A JSON-RPC endpoint is ${A2A_RPC_PATH}, the HTTP+JSON routes are under ${A2A_REST_PATH}/, the agent card is ${CARD_PATH}`);
    if (req.method !== 'POST') return plain(res, 405, 'A2A JSON-RPC requests are POSTed', { allow: 'POST' });
    const principal = requestPrincipal(options.auth, { authorization: req.headers.authorization });
    if (principal === undefined) return rpcError(res, 401, UNAUTHORIZED_CODE, UNAUTHORIZED_MESSAGE, { 'www-authenticate': BEARER_CHALLENGE });
    const mediaType = (req.headers['content-type'] ?? 'application/json').split(';', 1)[0]!.trim().toLowerCase();
    if (mediaType !== 'application/json' && mediaType !== 'application/a2a+json') return rpcError(res, 415, -32600, `Unsupported Content-Type ${mediaType}: send application/json`);

    const body = await readJsonBody(req, limits);
    if (!body.ok) {
      options.log?.(`A2A: refused a request: ${body.message}`);
      // An oversized body is not read to its end (leaving the loop destroyed the request): the connection closes after the error.
      return rpcError(res, body.status, body.code, body.message, body.status === 413 ? { connection: 'close' } : {}, body.id);
    }

    const requestedVersion = header(req, A2A_VERSION_HEADER);
    const legacy = (requestedVersion ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
    const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
    const id = rpcId(body.value);
    try {
      const context = defaultServerCallContextBuilder({
        extensions: Extensions.parseServiceParameter(legacy ? (header(req, LEGACY_HTTP_EXTENSION_HEADER) ?? header(req, HTTP_EXTENSION_HEADER)) : header(req, HTTP_EXTENSION_HEADER)),
        user: new A2aPrincipal(principal),
        headers: req.headers,
        requestedVersion,
      });
      validateVersion(context.requestedVersion, await rpc!.handler.getAgentCard(), 'JSONRPC');
      checkRpcParams(body.value, legacy);
      const result = await (legacy ? rpc!.legacy : rpc!.v1).handle(body.value as Record<string, unknown>, context);
      await writeRpcResult(res, result, { id, mapError, log: options.log });
    } catch (error) {
      const mapped = mapError(error);
      if (!res.headersSent) rpcError(res, 200, mapped.code, mapped.message, {}, id);
      else if (!res.writableEnded) res.end();
    }
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log?.(`A2A request failed: ${clipForLog((error as Error).message)}`);
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
      else if (!res.writableEnded) res.end();
    });
  });
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  await new Promise<void>((ready, fail) => {
    http.once('error', fail);
    if (options.listenFd !== undefined) http.listen({ fd: options.listenFd }, () => ready());
    else http.listen(options.port, options.host, () => ready());
  });
  const port = (http.address() as AddressInfo).port;
  const origin = serverOrigin(options.host, port);
  const card = buildAgentCard({ ...options.card, url: `${origin}${A2A_RPC_PATH}`, restUrl: `${origin}${A2A_REST_PATH}`, bearerAuth: options.auth.enabled });
  cardJson = JSON.stringify(AgentCard.toJSON(card));
  legacyCardJson = JSON.stringify(legacyAgentCard(card));
  const handler = new DefaultRequestHandler(card, options.taskStore, options.executor);
  rpc = { handler, v1: new JsonRpcTransportHandler(handler), legacy: new LegacyJsonRpcTransportHandler(handler) };
  const closed = new Promise<void>((done) => http.once('close', () => done()));
  return {
    url: `${origin}${A2A_RPC_PATH}`,
    restUrl: `${origin}${A2A_REST_PATH}`,
    cardUrl: `${origin}${CARD_PATH}`,
    port,
    closed,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((done) => http.close(() => done()));
    },
  };
}

/** Checks the params of a method we serve (0.3 names for a 0.3 request, 1.0 names for 1.0); the SDK answers the rest. */
function checkRpcParams(body: unknown, legacy: boolean): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (typeof method !== 'string' || method.includes('/') !== legacy || !Object.hasOwn(A2A_RPC_PARAMS, method)) return;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return; // the SDK's own "Invalid method parameters."
  checkA2aParams(A2A_RPC_PARAMS[method]!, params, method);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value || undefined;
}

function rpcId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain', ...headers });
  res.end(text);
}

function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, id: string | number | null = null): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
}
