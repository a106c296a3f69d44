import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type * as acp from '@agentclientprotocol/sdk';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';
import type { Agent } from '../../agent/agent.js';
import { jsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { createHostOriginCheck, serverOrigin } from '../http/host-origin-check.js';
import { createNetworkAuth, type NetworkAuth } from '../http/network-auth.js';
import { requestPrincipal, selectSubprotocol } from '../http/request-principal.js';
import { BEARER_CHALLENGE, UNAUTHORIZED_BODY, unauthorizedUpgradeReply } from '../http/unauthorized-response.js';
import { watchIdle } from './acp-http-idle-stream.js';
import { answerHttpBatch } from './answer-http-batch.js';
import { gateAcpWebSockets } from './gate-acp-web-sockets.js';
import { guardAcpStream } from './guard-acp-stream.js';
import { refuseOversizedBody } from './refuse-oversized-body.js';
import type { ServeAcpOptions } from './serve-acp.js';
import { serveAcpVersions, type AcpConnectionHandle } from './serve-acp-versions.js';

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
}

export interface AcpHttpServer {
  /** `http://host:port/acp`; WebSocket clients use the same path with `ws://`. */
  url: string;
  port: number;
  /** Connections currently open (HTTP and WebSocket). */
  connections(): number;
  closed: Promise<void>;
  close(): Promise<void>;
}

export const ACP_HTTP_PATH = '/acp';
/**
 * ACP over streamable HTTP and WebSocket at one `/acp` endpoint, with the SDK's
 * experimental server transport. Every client gets its own `serveAcp` connection over
 * the one agent; a client that reconnects continues with `session/load`. Every request
 * (and every upgrade) carries a bearer token; each principal has its own transport
 * server, so a connection id is only ever usable with the credentials that opened it.
 */
export async function serveAcpHttp(agent: Agent, options: AcpHttpOptions): Promise<AcpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const idleMs = options.idleTimeoutMs ?? 300_000;
  const auth = options.auth ?? createNetworkAuth({ host, token: options.authToken, noAuth: options.noAuth, log: options.log });
  const checkHostOrigin = createHostOriginCheck({ host, allowedOrigins: options.allowedOrigins });
  const open = new Set<AcpConnectionHandle>();
  const limits = jsonRpcLimits({ maxMessageBytes: options.maxMessageBytes, maxDepth: options.maxJsonDepth });

  const { WebSocketServer } = await import('ws');
  const warn = options.warn ?? options.log;
  const webSockets = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, handleProtocols: (protocols) => selectSubprotocol(protocols) });
  const sockets = gateAcpWebSockets(webSockets, limits, warn);
  const servers = new Map<string, { acp: AcpServer; http: ReturnType<typeof createNodeHttpHandler>; upgrade: ReturnType<typeof createNodeWebSocketUpgradeHandler> }>();
  const serverFor = (principal: string) => {
    let entry = servers.get(principal);
    if (!entry) {
      const acpServer = new AcpServer({
        createAgent: () => ({
          connect(stream: acp.Stream) {
            let connection: AcpConnectionHandle | undefined;
            const idle = watchIdle(guardAcpStream(stream, limits, warn), idleMs, () => {
              options.log?.('closing an idle ACP connection');
              connection?.close();
            });
            connection = serveAcpVersions(agent, idle.stream, { ...options, principal });
            open.add(connection);
            void connection.closed.finally(() => {
              idle.stop();
              open.delete(connection!);
            });
            return connection;
          },
        }),
      });
      entry = { acp: acpServer, http: createNodeHttpHandler(acpServer, { maxRequestBodyBytes: limits.maxMessageBytes }), upgrade: createNodeWebSocketUpgradeHandler(acpServer, sockets) };
      servers.set(principal, entry);
    }
    return entry;
  };

  /**
   * `forbidden`/`not found` (with why), or the principal the request speaks for (`undefined`:
   * unauthorized). The subprotocol credential counts only on a WebSocket upgrade (browsers cannot
   * set headers there); a plain HTTP request must send `Authorization`.
   */
  const admit = (req: IncomingMessage, upgrade: boolean): { refused: 403 | 404; reason: string } | { principal: string | undefined } => {
    const reason = checkHostOrigin({ host: req.headers.host, origin: req.headers.origin });
    if (reason) return { refused: 403, reason };
    if ((req.url ?? '/').split('?')[0] !== ACP_HTTP_PATH) return { refused: 404, reason: `Not found: the ACP endpoint is ${ACP_HTTP_PATH}` };
    return {
      principal: requestPrincipal(auth, { authorization: req.headers.authorization, ...(upgrade ? { webSocketProtocol: req.headers['sec-websocket-protocol'] } : {}) }),
    };
  };

  const http: HttpServer = createServer((req, res) => {
    const verdict = admit(req, false);
    if ('refused' in verdict) {
      res.writeHead(verdict.refused, { 'content-type': 'text/plain' });
      return void res.end(verdict.reason);
    }
    if (verdict.principal === undefined) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': BEARER_CHALLENGE });
      return void res.end(UNAUTHORIZED_BODY);
    }
    if (refuseOversizedBody(req, res, limits, warn)) return;
    const handler = serverFor(verdict.principal).http;
    if (req.method !== 'POST') return handler(req, res);
    answerHttpBatch(req, res, limits, warn).then(
      (answered) => void (answered || handler(req, res)),
      (error: unknown) => {
        warn?.(`acp: a request failed: ${(error as Error).message}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end();
      },
    );
  });

  // Idle keep-alive sockets outlive the clients' own pool timeouts, so a client never
  // reuses a socket the server is closing at that moment (a spurious "other side closed").
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const verdict = admit(req, true);
    if ('refused' in verdict) {
      socket.end(`HTTP/1.1 ${verdict.refused === 404 ? '404 Not Found' : '403 Forbidden'}\r\nConnection: close\r\n\r\n`);
      return;
    }
    if (verdict.principal === undefined) return void socket.end(unauthorizedUpgradeReply());
    serverFor(verdict.principal).upgrade(req, socket, head);
  });

  await new Promise<void>((ready, fail) => {
    http.once('error', fail);
    http.listen(options.port, host, () => ready());
  });
  const port = (http.address() as AddressInfo).port;
  const closed = new Promise<void>((done) => http.once('close', () => done()));
  return {
    url: `${serverOrigin(host, port)}${ACP_HTTP_PATH}`,
    port,
    connections: () => open.size,
    closed,
    async close() {
      for (const server of servers.values()) await server.acp.close().catch(() => undefined);
      for (const connection of open) connection.close();
      webSockets.close();
      http.closeAllConnections();
      await new Promise<void>((done) => http.close(() => done()));
    },
  };
}
