import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type * as acp from '@agentclientprotocol/sdk';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from '@agentclientprotocol/sdk/experimental/node';
import type { Agent } from '../../agent/agent.js';
import { watchIdle } from './acp-http-idle-stream.js';
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
const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '']);

/**
 * ACP over streamable HTTP and WebSocket at one `/acp` endpoint, with the SDK's
 * experimental server transport. Every client gets its own `serveAcp` connection over
 * the one agent; a client that reconnects continues with `session/load`.
 */
export async function serveAcpHttp(agent: Agent, options: AcpHttpOptions): Promise<AcpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const idleMs = options.idleTimeoutMs ?? 300_000;
  const allowedHosts = new Set(LOCAL_HOSTS);
  if (!WILDCARD_HOSTS.has(host)) allowedHosts.add(host.includes(':') ? `[${host}]` : host);
  const allowedOrigins = new Set([...LOCAL_HOSTS, ...(options.allowedOrigins ?? [])]);
  const open = new Set<AcpConnectionHandle>();

  const acpServer = new AcpServer({
    createAgent: () => ({
      connect(stream: acp.Stream) {
        let connection: AcpConnectionHandle | undefined;
        const idle = watchIdle(stream, idleMs, () => {
          options.log?.('closing an idle ACP connection');
          connection?.close();
        });
        connection = serveAcpVersions(agent, idle.stream, options);
        open.add(connection);
        void connection.closed.finally(() => {
          idle.stop();
          open.delete(connection!);
        });
        return connection;
      },
    }),
  });

  const rejectReason = (req: IncomingMessage): string | undefined => {
    const hostname = hostnameOf(req.headers.host);
    // Bound to every interface, the server is meant to be reached by other names; Origin is still checked.
    if (!WILDCARD_HOSTS.has(host) && (!hostname || !allowedHosts.has(hostname))) return `Host ${req.headers.host ?? '(missing)'} is not allowed`;
    const origin = req.headers.origin;
    if (origin !== undefined) {
      let originHost: string;
      try {
        originHost = new URL(origin).hostname;
      } catch {
        return `Origin ${origin} is not allowed`;
      }
      if (!allowedOrigins.has(originHost) && !allowedOrigins.has(`[${originHost}]`) && !allowedOrigins.has(originHost.replace(/^\[|\]$/g, ''))) {
        return `Origin ${origin} is not allowed`;
      }
    }
    if ((req.url ?? '/').split('?')[0] !== ACP_HTTP_PATH) return 'not found';
    return undefined;
  };

  const handleHttp = createNodeHttpHandler(acpServer);
  const http: HttpServer = createServer((req, res) => {
    const reason = rejectReason(req);
    if (reason) {
      res.writeHead(reason === 'not found' ? 404 : 403, { 'content-type': 'text/plain' });
      return void res.end(reason === 'not found' ? `Not found: the ACP endpoint is ${ACP_HTTP_PATH}` : reason);
    }
    handleHttp(req, res);
  });

  // Idle keep-alive sockets outlive the clients' own pool timeouts, so a client never
  // reuses a socket the server is closing at that moment (a spurious "other side closed").
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  const { WebSocketServer } = await import('ws');
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  const handleUpgrade = createNodeWebSocketUpgradeHandler(acpServer, sockets);
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const reason = rejectReason(req);
    if (reason) {
      socket.end(`HTTP/1.1 ${reason === 'not found' ? '404 Not Found' : '403 Forbidden'}\r\nConnection: close\r\n\r\n`);
      return;
    }
    handleUpgrade(req, socket, head);
  });

  await new Promise<void>((ready, fail) => {
    http.once('error', fail);
    http.listen(options.port, host, () => ready());
  });
  const port = (http.address() as AddressInfo).port;
  const closed = new Promise<void>((done) => http.once('close', () => done()));
  const urlHost = WILDCARD_HOSTS.has(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${ACP_HTTP_PATH}`,
    port,
    connections: () => open.size,
    closed,
    async close() {
      await acpServer.close().catch(() => undefined);
      for (const connection of open) connection.close();
      sockets.close();
      http.closeAllConnections();
      await new Promise<void>((done) => http.close(() => done()));
    },
  };
}

/** `localhost:3284` → `localhost`, `[::1]:3284` → `[::1]`. */
function hostnameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  if (header.startsWith('[')) {
    const end = header.indexOf(']');
    return end === -1 ? undefined : header.slice(0, end + 1);
  }
  return header.split(':')[0];
}
