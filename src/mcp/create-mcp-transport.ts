import { ClientCredentialsProvider, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AuthProvider, OAuthClientProvider, Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpServerConfig } from '../config/schema.js';
import { toolEnvironment } from '../tools/secret-env.js';
import { McpClientError } from './mcp-client-error.js';
import { SpawnedStdioTransport, type SpawnStdioServer } from './spawned-stdio-transport.js';

/** How a client finds credentials; every hook may be async. */
export interface McpAuthHooks {
  /** The bearer token to send (called before every HTTP request); the config's token when absent or undefined. */
  onAuth?(server: McpServerConfig): Promise<string | undefined> | string | undefined;
  /** The server answered 401: refresh and return a new token (the request is retried once). */
  onAuthRefresh?(server: McpServerConfig, context: { status: number }): Promise<string | undefined> | string | undefined;
  /** The SDK OAuth provider for servers with `auth: { type: 'oauth' }`. */
  oauthProvider?(server: McpServerConfig): OAuthClientProvider | undefined;
}

export interface CreateMcpTransportOptions extends McpAuthHooks {
  /** Receives each line the stdio child writes to stderr (kept off our own stderr). */
  onStderr?(line: string): void;
  /**
   * Starts stdio servers somewhere else instead of as this process's children (the
   * whole-agent launcher runs each in a sandbox of its own); it gives them the allow-listed
   * environment where they run, plus the config's `env`.
   */
  spawnStdio?: SpawnStdioServer;
}

/**
 * One transport per connection attempt, built from the server's config: a reconnect builds a
 * fresh one (transports are single-use in the SDK).
 */
export function createMcpTransport(server: McpServerConfig, options: CreateMcpTransportOptions = {}): Transport {
  if (server.transport === 'stdio' && options.spawnStdio) {
    const command = { serverId: server.id, command: server.command ?? '', args: server.args, ...(server.cwd ? { cwd: server.cwd } : {}), ...(server.env ? { env: server.env } : {}) };
    const lines = stderrLines(options.onStderr);
    return new SpawnedStdioTransport(options.spawnStdio, command, (chunk) => lines(Buffer.from(chunk)));
  }
  if (server.transport === 'stdio') {
    const transport = new StdioClientTransport({
      command: server.command ?? '',
      args: server.args,
      // The same allow-listed environment as every tool process (PATH, HOME, locale, proxies, …;
      // see tools/secret-env.ts); the server's own config `env` adds to it, credentials included.
      env: { ...toolEnvironment(), ...server.env },
      cwd: server.cwd,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', stderrLines(options.onStderr));
    return transport;
  }
  const url = new URL(server.url ?? '');
  const authProvider = createAuthProvider(server, options);
  const requestInit: RequestInit = { headers: { ...server.headers } };
  if (server.transport === 'http') return new StreamableHTTPClientTransport(url, { authProvider, requestInit });
  return new SSEClientTransport(url, { authProvider, requestInit, eventSourceInit: {} });
}

/** A stdio server's stderr, line by line, blank lines skipped. */
function stderrLines(onLine?: (line: string) => void): (chunk: Buffer) => void {
  let buffered = '';
  return (chunk) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) onLine?.(line);
  };
}

function createAuthProvider(server: McpServerConfig, hooks: McpAuthHooks): AuthProvider | OAuthClientProvider | undefined {
  const auth = server.auth;
  if (auth.type === 'oauth') {
    const provider = hooks.oauthProvider?.(server) ?? clientCredentials(auth);
    if (!provider) {
      throw new McpClientError({
        code: 'auth_failed',
        serverId: server.id,
        message: `server "${server.id}" uses OAuth but no OAuth provider was supplied (McpClientOptions.oauthProvider), and it has no clientId/clientSecret for the client_credentials grant`,
      });
    }
    return provider;
  }
  if (auth.type === 'none' && !hooks.onAuth) return undefined;
  let refreshed: string | undefined;
  const provider: AuthProvider = {
    async token() {
      if (refreshed) return refreshed;
      const fromHook = await hooks.onAuth?.(server);
      return fromHook ?? (auth.type === 'bearer' ? auth.token : undefined);
    },
  };
  if (hooks.onAuthRefresh) {
    const refresh = hooks.onAuthRefresh;
    provider.onUnauthorized = async (context) => {
      refreshed = (await refresh(server, { status: context.response.status })) ?? refreshed;
    };
  }
  return provider;
}

/**
 * Without a host-supplied provider, an OAuth server configured with a client id and secret and
 * no redirect URL uses the machine-to-machine `client_credentials` grant (the SDK's provider);
 * interactive authorization-code flows need a provider from the host, which can show a browser.
 */
function clientCredentials(auth: { clientId?: string; clientSecret?: string; scope?: string; redirectUrl?: string }): OAuthClientProvider | undefined {
  if (!auth.clientId || !auth.clientSecret || auth.redirectUrl) return undefined;
  return new ClientCredentialsProvider({ clientId: auth.clientId, clientSecret: auth.clientSecret, scope: auth.scope });
}
