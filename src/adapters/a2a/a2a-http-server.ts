import { A2A_VERSION_HEADER, AGENT_CARD_PATH, AgentCard } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { DefaultRequestHandler, JsonRpcTransportHandler, type AgentExecutor, type ExecutionEventBusManager, type TaskStore } from '@a2a-js/sdk/server';
import type { HttpFace } from '../http/http-face.js';
import { internalErrorMessage } from '../internal-error-message.js';
import type { NetworkAuth } from '../http/network-auth.js';
import { serveHttpCore } from '../http/serve-http-core.js';
import { BEARER_CHALLENGE, UNAUTHORIZED_CODE, UNAUTHORIZED_MESSAGE } from '../http/unauthorized-response.js';
import { jsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { answerA2aRpc, type A2aRpcHandlers } from './answer-a2a-rpc.js';
import { answerRestRequest } from './answer-rest-request.js';
import { buildAgentCard, type AgentCardInput } from './build-agent-card.js';
import { legacyAgentCard } from './legacy-agent-card.js';
import { RestHttpError, restErrorResponse } from './rest-result-response.js';
import { A2A_REST_PATH } from './rest-routes.js';
import { rpcJson } from './rpc-result-response.js';

export const A2A_RPC_PATH = '/a2a';
const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
const CARD_PATH = `/${AGENT_CARD_PATH}`;

export interface A2aHttpOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Accept on this inherited listening socket instead of binding `host:port` (the sandboxed child). */
  listenFd?: number;
  auth: NetworkAuth;
  executor: AgentExecutor;
  taskStore: TaskStore;
  /** The tasks' event buses (default: the SDK's, in this process only). */
  buses?: ExecutionEventBusManager;
  card: Omit<AgentCardInput, 'url' | 'bearerAuth'>;
  allowedOrigins?: readonly string[];
  /** Largest request body accepted (bytes); default 16 MiB. */
  maxMessageBytes?: number;
  /** Deepest nesting of arrays/objects in a body; default 128, as on the ACP face. */
  maxJsonDepth?: number;
  log?: (message: string) => void;
  /** What `/readyz` waits for (the agent's store answering). */
  ready?: () => Promise<void>;
  /** The origin the card names (a balancer's); default: the address this server listens on. */
  publicUrl?: string;
  /** This replica's route name (`Plaited-Replica`); default: host name and port. */
  replicaId?: string;
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
 * A2A mounted on the HTTP core as three routes: the public agent card, JSON-RPC at
 * {@link A2A_RPC_PATH} (the SDK's transport-agnostic `JsonRpcTransportHandler` for protocol 1.0
 * and `LegacyJsonRpcTransportHandler` for 0.3, chosen by the `A2A-Version` header as the SDK's own
 * Express router does) and A2A 1.0 HTTP+JSON under {@link A2A_REST_PATH}, both on one request
 * handler. The core checks Host/Origin and the bearer token of every call.
 */
export async function serveA2aHttp(options: A2aHttpOptions): Promise<A2aHttpServer> {
  const limits = jsonRpcLimits({ maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_BODY_BYTES, maxDepth: options.maxJsonDepth });
  // The card names the server's URL, known once it listens; no request is answered before.
  let rpc: A2aRpcHandlers | undefined;
  const cards = { current: '', legacy: '' };
  const faces: HttpFace[] = [
    { paths: [CARD_PATH], public: true, unauthorized: () => rpcJson({}), fetch: (request) => cardResponse(request, cards) },
    {
      paths: [`${A2A_REST_PATH}/*`],
      unauthorized: () => restErrorResponse(new RestHttpError(401, 'UNAUTHENTICATED', UNAUTHORIZED_MESSAGE, { 'www-authenticate': BEARER_CHALLENGE })),
      fetch: (request, principal) =>
        answerRestRequest(request, { handler: rpc!.handler, principal: principal!, path: new URL(request.url).pathname.slice(A2A_REST_PATH.length), limits, log: options.log }),
    },
    {
      paths: [A2A_RPC_PATH],
      unauthorized: () => rpcJson({ jsonrpc: '2.0', id: null, error: { code: UNAUTHORIZED_CODE, message: UNAUTHORIZED_MESSAGE } }, 401, { 'www-authenticate': BEARER_CHALLENGE }),
      fetch: (request, principal) => answerA2aRpc(request, principal!, { rpc: rpc!, limits, log: options.log }),
    },
  ];
  const text = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'text/plain' } });
  const core = await serveHttpCore({
    host: options.host,
    port: options.port,
    listenFd: options.listenFd,
    auth: options.auth,
    allowedOrigins: options.allowedOrigins,
    faces,
    forbidden: (reason) => text(403, reason),
    notFound: () => text(404, `Not found: the A2A JSON-RPC endpoint is ${A2A_RPC_PATH}, the HTTP+JSON routes are under ${A2A_REST_PATH}/, the agent card is ${CARD_PATH}`),
    // What escaped a face (each answers its own failures): in the shape of the route it came to.
    failed: (error, request) =>
      request && new URL(request.url).pathname.startsWith(`${A2A_REST_PATH}/`)
        ? restErrorResponse(error)
        : rpcJson({ jsonrpc: '2.0', id: null, error: { code: -32603, message: internalErrorMessage(error) } }, 500),
    warn: options.log,
    ...(options.ready ? { ready: options.ready } : {}),
    ...(options.replicaId === undefined ? {} : { replicaId: options.replicaId }),
  });
  const cardOrigin = options.publicUrl?.replace(/\/+$/, '') ?? core.origin;
  const card = buildAgentCard({ ...options.card, url: `${cardOrigin}${A2A_RPC_PATH}`, restUrl: `${cardOrigin}${A2A_REST_PATH}`, bearerAuth: options.auth.enabled });
  cards.current = JSON.stringify(AgentCard.toJSON(card));
  cards.legacy = JSON.stringify(legacyAgentCard(card));
  const handler = new DefaultRequestHandler(card, options.taskStore, options.executor, options.buses);
  rpc = { handler, v1: new JsonRpcTransportHandler(handler), legacy: new LegacyJsonRpcTransportHandler(handler) };
  return {
    url: `${core.origin}${A2A_RPC_PATH}`,
    restUrl: `${core.origin}${A2A_REST_PATH}`,
    cardUrl: `${core.origin}${CARD_PATH}`,
    port: core.port,
    closed: core.closed,
    close: () => core.close(),
  };
}

/** The agent card: its shape follows the version asked for, as with the RPCs (none means 0.3). */
function cardResponse(request: Request, cards: { current: string; legacy: string }): Response {
  if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('the agent card is read with GET', { status: 405, headers: { 'content-type': 'text/plain', allow: 'GET, HEAD' } });
  const legacy = (request.headers.get(A2A_VERSION_HEADER) || A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
  const headers = { 'content-type': 'application/json', 'cache-control': 'no-cache', vary: A2A_VERSION_HEADER };
  return new Response(request.method === 'HEAD' ? null : legacy ? cards.legacy : cards.current, { status: 200, headers });
}
