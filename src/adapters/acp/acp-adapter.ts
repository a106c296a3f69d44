import { Readable, Writable } from 'node:stream';
import type { AgentAdapter } from '../agent-adapter.js';
import { jsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { boundedNdJsonStream } from './bounded-nd-json-stream.js';
import type { NetworkAuth } from '../http/network-auth.js';
import type { ServeAcpOptions } from './serve-acp.js';
import { serveAcpVersions } from './serve-acp-versions.js';
import { defaultConfig } from '../../config/default-config.js';
import type { PlaitedConfig } from '../../config/schema.js';

export interface AcpAdapterOptions extends ServeAcpOptions {
  /** A resolved config to take `acpSettings` from when they are not given (what a custom adapter's `wrap` receives). */
  config?: PlaitedConfig;
  /** `stdio` (default) or `http`: streamable HTTP and WebSocket at `/acp`. */
  transport?: 'stdio' | 'http';
  /** Defaults to the process's stdin/stdout. */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** HTTP transport: bind address, port, idle timeout, extra allowed origins; defaults as for config `adapters.acp`. */
  host?: string;
  port?: number;
  idleTimeoutMs?: number;
  allowedOrigins?: readonly string[];
  /** HTTP transport: who may connect. Default: a bearer token from `authToken`, generated and logged when absent; `noAuth` only on loopback. */
  networkAuth?: (host: string) => NetworkAuth;
  authToken?: string;
  noAuth?: boolean;
  /** HTTP transport: this replica's route name behind a balancer (default: host name and port). */
  replicaId?: string;
  /** HTTP transport: told the URL (and the replica's route name) once listening. */
  onListening?: (url: string, replicaId: string) => void;
}

export interface AcpStdioServer {
  /** Resolves when the client disconnects (stdin closed), or the HTTP server closes. */
  closed: Promise<void>;
  close(): void;
  /** Set for the HTTP transport. */
  url?: string;
  /** HTTP: new connections are refused from now on (a replica shutting down); open ones go on. */
  drain?(): void;
}

/** ACP over stdio (newline-delimited JSON-RPC; stdout carries protocol bytes only), or over HTTP/WebSocket. */
export const acpAdapter: AgentAdapter<AcpAdapterOptions, AcpStdioServer> = {
  name: 'acp',
  async wrap(agent, given = {}) {
    const options = given.acpSettings || !given.config ? given : { ...given, acpSettings: (await import('./acp-agent-settings.js')).acpSettingsFromConfig(given.config) };
    if (options.transport === 'http') {
      const { serveAcpHttp } = await import('./acp-http-server.js');
      const settings = defaultConfig().adapters.acp;
      const host = options.host ?? settings.host;
      const auth = options.networkAuth?.(host);
      const server = await serveAcpHttp(agent, {
        ...options,
        host,
        ...(auth ? { auth } : {}),
        // The config's token when a config is given, as the MCP face does.
        ...(options.authToken === undefined && options.config?.server.auth.token ? { authToken: options.config.server.auth.token } : {}),
        port: options.port ?? settings.port,
        maxMessageBytes: options.maxMessageBytes ?? settings.maxMessageBytes,
        maxJsonDepth: options.maxJsonDepth ?? settings.maxJsonDepth,
      });
      options.onListening?.(server.url, server.replicaId);
      return { closed: server.closed, close: () => void server.close(), url: server.url, drain: () => server.drain() };
    }
    const input = Readable.toWeb((options.input ?? process.stdin) as Readable) as ReadableStream<Uint8Array>;
    const output = Writable.toWeb((options.output ?? process.stdout) as Writable) as WritableStream<Uint8Array>;
    const settings = defaultConfig().adapters.acp;
    const limits = jsonRpcLimits({ maxMessageBytes: options.maxMessageBytes ?? settings.maxMessageBytes, maxDepth: options.maxJsonDepth ?? settings.maxJsonDepth });
    // v1, or the experimental v2 draft when the client's initialize asks for it.
    const connection = serveAcpVersions(agent, boundedNdJsonStream(output, input, { limits, warn: options.warn ?? options.log }), options);
    return { closed: connection.closed, close: () => connection.close() };
  },
};
