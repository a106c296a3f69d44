import type { Agent } from '../../agent/agent.js';
import { createNetworkAuth, type NetworkAuth } from '../http/network-auth.js';
import { selectSubprotocol } from '../http/request-principal.js';
import { REPLICA_HEADER } from '../http/replica-id.js';
import { serveHttpCore, type HttpCore } from '../http/serve-http-core.js';
import { internalErrorMessage } from '../internal-error-message.js';
import { errorResponse } from '../json-rpc/inspect-json-rpc.js';
import { jsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { ACP_HTTP_PATH, createAcpHttpFace } from './acp-http-face.js';
import type { ServeAcpOptions } from './serve-acp.js';

export { ACP_HTTP_PATH };

export interface AcpHttpOptions extends ServeAcpOptions {
  /** Bind address; 127.0.0.1 by default. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** A connection with no traffic and no open request for this long is closed (default 5 minutes). */
  idleTimeoutMs?: number;
  /** Extra Origin hostnames browsers may connect from (localhost ones are always allowed). */
  allowedOrigins?: readonly string[];
  /** Who may connect; default: a bearer token from `authToken`, generated (and logged) when absent. */
  auth?: NetworkAuth;
  authToken?: string;
  /** No authentication: only with a loopback host. */
  noAuth?: boolean;
  /** This replica's route name: the prefix of its ACP connection ids, which a balancer routes by (default: host name and port). */
  replicaId?: string;
}

export interface AcpHttpServer {
  /** `http://host:port/acp`; WebSocket clients use the same path with `ws://`. */
  url: string;
  port: number;
  /** The route name this replica answers under (`Plaited-Replica`, the connection ids' prefix). */
  replicaId: string;
  /** Connections currently open (HTTP and WebSocket). */
  connections(): number;
  closed: Promise<void>;
  /** Refuses new connections (HTTP 503, a JSON-RPC error naming the drain) while the open ones finish. */
  drain(): void;
  close(): Promise<void>;
}

/**
 * ACP over streamable HTTP and WebSocket at one `/acp` endpoint: the ACP face mounted on the
 * HTTP core, which checks Host/Origin and the bearer token of every request and every upgrade
 * (the `bearer.<token>` subprotocol counts only on an upgrade: browsers cannot set headers there).
 * A client that reconnects continues with `session/load`.
 */
export async function serveAcpHttp(agent: Agent, options: AcpHttpOptions): Promise<AcpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const auth = options.auth ?? createNetworkAuth({ host, token: options.authToken, noAuth: options.noAuth, log: options.log });
  const limits = jsonRpcLimits({ maxMessageBytes: options.maxMessageBytes, maxDepth: options.maxJsonDepth });
  const { WebSocketServer } = await import('ws');
  const webSockets = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, handleProtocols: (protocols) => selectSubprotocol(protocols) });
  let core: HttpCore | undefined;
  const replicaId = () => core?.replicaId ?? options.replicaId ?? '';
  // The upgrade's 101 names the replica too (it is written by ws, not by the core).
  webSockets.on('headers', (headers) => headers.push(`${REPLICA_HEADER}: ${replicaId()}`));
  const acp = createAcpHttpFace(agent, { ...options, idleMs: options.idleTimeoutMs ?? 300_000, limits, webSockets, replicaId });
  core = await serveHttpCore({
    host,
    port: options.port,
    auth,
    allowedOrigins: options.allowedOrigins,
    faces: [acp.face],
    forbidden: (reason) => text(403, reason),
    notFound: () => text(404, `Not found: the ACP endpoint is ${ACP_HTTP_PATH}`),
    // The face answers a request's own failure with its id; this is what escaped it.
    failed: (error) => new Response(JSON.stringify(errorResponse(null, -32603, internalErrorMessage(error))), { status: 500, headers: { 'content-type': 'application/json' } }),
    warn: options.warn ?? options.log,
    ready: async () => agent.ready?.(),
    ...(options.replicaId === undefined ? {} : { replicaId: options.replicaId }),
  });
  return {
    url: `${core.origin}${ACP_HTTP_PATH}`,
    port: core.port,
    replicaId: core.replicaId,
    connections: acp.connections,
    closed: core.closed,
    drain: () => acp.drain(),
    async close() {
      await acp.close();
      await core!.close();
    },
  };
}

function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/plain' } });
}
