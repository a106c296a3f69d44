import type * as acp from '@agentclientprotocol/sdk';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';
import type { WebSocketServer } from 'ws';
import type { Agent } from '../../agent/agent.js';
import type { HttpFace } from '../http/http-face.js';
import { readBoundedBody } from '../http/read-bounded-body.js';
import { writeUpgradeRefusal } from '../http/write-upgrade-refusal.js';
import { unauthorizedResponse } from '../http/unauthorized-response.js';
import { internalErrorMessage } from '../internal-error-message.js';
import { PARSE_ERROR, errorResponse } from '../json-rpc/inspect-json-rpc.js';
import { drainingRefusal } from './acp-draining-refusal.js';
import type { JsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { recoverJsonRpcId } from '../json-rpc/recover-json-rpc-id.js';
import { CONNECTION_HEADER, connectionRoute, misroutedResponse, withPrefixedConnectionId, withSdkConnectionId } from './acp-connection-route.js';
import { AcpHttpBatchLink } from './acp-http-batch-link.js';
import { watchIdle } from './acp-http-idle-stream.js';
import { answerHttpBatch } from './answer-http-batch.js';
import { gateAcpWebSockets } from './gate-acp-web-sockets.js';
import { guardAcpStream } from './guard-acp-stream.js';
import type { ServeAcpOptions } from './serve-acp.js';
import { serveAcpVersions, type AcpConnectionHandle } from './serve-acp-versions.js';

export const ACP_HTTP_PATH = '/acp';

export interface AcpHttpFaceOptions extends ServeAcpOptions {
  idleMs: number;
  limits: JsonRpcLimits;
  webSockets: WebSocketServer;
  /** This replica's route name: the prefix of the connection ids it hands out (known once listening). */
  replicaId: () => string;
}

interface PrincipalServer {
  acp: AcpServer;
  upgrade: ReturnType<typeof createNodeWebSocketUpgradeHandler>;
  /** The batch link of each HTTP connection, by `Acp-Connection-Id`. */
  links: Map<string, AcpHttpBatchLink>;
}

/**
 * ACP over streamable HTTP and WebSocket at `/acp`, as a face of the HTTP core, on the SDK's
 * fetch-style `AcpServer`. Every client gets its own `serveAcp` connection over the one agent;
 * each principal has its own transport server, so a connection id is only ever usable with the
 * credentials that opened it.
 */
export function createAcpHttpFace(agent: Agent, options: AcpHttpFaceOptions): { face: HttpFace; connections(): number; drain(): void; close(): Promise<void> } {
  const { limits, idleMs } = options;
  let draining = false;
  const warn = options.warn ?? options.log;
  const open = new Set<AcpConnectionHandle>();
  const sockets = gateAcpWebSockets(options.webSockets, limits, warn);
  const servers = new Map<string, PrincipalServer>();

  const connector = (principal: string, link: AcpHttpBatchLink | undefined) => ({
    connect(stream: acp.Stream) {
      let connection: AcpConnectionHandle | undefined;
      const guarded = guardAcpStream(link ? link.wrap(stream) : stream, limits, warn);
      const idle = watchIdle(guarded, idleMs, () => {
        options.log?.('closing an idle ACP connection');
        connection?.close();
      });
      connection = serveAcpVersions(agent, idle.stream, { ...options, principal });
      open.add(connection);
      void connection.closed.finally(() => {
        idle.stop();
        open.delete(connection!);
        for (const [id, held] of servers.get(principal)?.links ?? []) if (held === link) servers.get(principal)!.links.delete(id);
      });
      return connection;
    },
  });
  const serverFor = (principal: string): PrincipalServer => {
    let entry = servers.get(principal);
    if (!entry) {
      const acpServer = new AcpServer({ createAgent: () => connector(principal, undefined) });
      entry = { acp: acpServer, upgrade: createNodeWebSocketUpgradeHandler(acpServer, sockets), links: new Map() };
      servers.set(principal, entry);
    }
    return entry;
  };

  const post = async (request: Request, principal: string): Promise<Response> => {
    const entry = serverFor(principal);
    const body = await readBoundedBody(request, limits);
    if ('oversized' in body) {
      warn?.(`acp: ${body.oversized.warning}`);
      return json(413, body.oversized.reply, { connection: 'close' });
    }
    if (body.text.trim() === '') return json(400, errorResponse(null, PARSE_ERROR, 'Parse error: the body is empty; POST one JSON-RPC message'));
    try {
      return await forward(request, body.text, principal, entry);
    } catch (error) {
      // Answered with the request's id, in JSON-RPC's shape; the connection and the process go on.
      warn?.(`acp: a request failed: ${(error as Error).message}`);
      return json(500, errorResponse(recoverJsonRpcId(body.text), -32603, internalErrorMessage(error)));
    }
  };

  const forward = async (request: Request, text: string, principal: string, entry: PrincipalServer): Promise<Response> => {
    const replica = options.replicaId();
    const route = connectionRoute(request.headers.get(CONNECTION_HEADER), replica);
    if (route.kind === 'other') return misroutedResponse(route.route, replica, recoverJsonRpcId(text), warn);
    const connectionId = route.kind === 'none' ? undefined : route.id;
    if (text.trimStart().startsWith('[')) {
      return answerHttpBatch(text, connectionId ? entry.links.get(connectionId) : undefined, { limits, signal: request.signal, warn });
    }
    const forwarded = new Request(request.url, { method: 'POST', headers: withSdkConnectionId(request.headers, connectionId), body: text, signal: request.signal });
    if (connectionId) return entry.acp.handleRequest(forwarded);
    if (draining) return drainingRefusal(text);
    // A new connection (an `initialize`): its batch link is kept under the id the SDK gives it,
    // the client is given that id behind this replica's route name.
    const link = new AcpHttpBatchLink(limits);
    const response = await entry.acp.handleRequest(forwarded, { createAgent: () => connector(principal, link) });
    const id = response.headers.get(CONNECTION_HEADER);
    if (id) entry.links.set(id, link);
    return id ? withPrefixedConnectionId(response, replica) : response;
  };

  const face: HttpFace = {
    paths: [ACP_HTTP_PATH],
    unauthorized: () => unauthorizedResponse(),
    fetch: (request, principal) => (request.method === 'POST' ? post(request, principal!) : getOrDelete(serverFor(principal!).acp, request, options.replicaId(), warn)),
    upgrade: ({ req, socket, head }, principal) => {
      if (draining) return void writeUpgradeRefusal(socket, drainingRefusal('')).catch(() => socket.destroy());
      serverFor(principal).upgrade(req, socket, head);
    },
  };
  return {
    face,
    connections: () => open.size,
    drain: () => void (draining = true),
    async close() {
      for (const server of servers.values()) await server.acp.close().catch(() => undefined);
      for (const connection of open) connection.close();
      options.webSockets.close();
    },
  };
}

/** A GET (the SSE streams) or DELETE: the SDK's, with the route prefix checked and stripped. */
function getOrDelete(server: AcpServer, request: Request, replica: string, warn: ((message: string) => void) | undefined): Promise<Response> | Response {
  const route = connectionRoute(request.headers.get(CONNECTION_HEADER), replica);
  if (route.kind === 'other') return misroutedResponse(route.route, replica, null, warn);
  if (route.kind !== 'own') return server.handleRequest(request);
  return server.handleRequest(new Request(request.url, { method: request.method, headers: withSdkConnectionId(request.headers, route.id), signal: request.signal }));
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}
