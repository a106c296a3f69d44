import type { Readable, Writable } from 'node:stream';
import type { Agent } from '../../agent/agent.js';
import type { PlaitedConfig, PlaitedConfigInput } from '../../config/schema.js';
import { parseConfig } from '../../config/parse-config.js';
import { defaultConfig } from '../../config/default-config.js';
import type { AgentAdapter } from '../agent-adapter.js';
import { jsonRpcLimits } from '../json-rpc/json-rpc-limits.js';
import { BoundedStdioServerTransport } from './bounded-stdio-server-transport.js';
import type { NetworkAuth } from '../http/network-auth.js';
import { createAgentMcpServer } from './create-agent-mcp-server.js';
import { hostSampling, type HostSampling } from './host-sampling.js';
import type { RegistryFace } from './register-registry-tools.js';
import { loadSkillPrompts, type SkillPrompt } from './skill-prompts.js';

export interface McpServerAdapterOptions {
  /** The `adapters.mcp` and `skills` settings; the defaults when absent. A `defineConfig` input gets its defaults filled in. */
  config?: PlaitedConfigInput | PlaitedConfig;
  version?: string;
  /** Overrides `adapters.mcp.transport`/`host`/`port` (the CLI flags). */
  transport?: 'stdio' | 'http';
  host?: string;
  port?: number;
  /** stdio streams; the process's by default. */
  input?: Readable;
  output?: Writable;
  /** Working folder of the sessions the server opens (default: the process cwd). */
  cwd?: string;
  /** Model calls go through the host's sampling via this; default: the process's `hostSampling`. */
  sampling?: HostSampling;
  /** The registry behind `discover`/`call`; default: `agent.mcp()` when the agent exposes one. */
  registry?: RegistryFace | (() => Promise<RegistryFace>);
  /** Prompts to offer; default: the skills found under `cwd` per the config. */
  skills?: readonly SkillPrompt[];
  /** HTTP: who may call. Default: a bearer token from `authToken`, generated and logged when absent; `noAuth` only on loopback. */
  networkAuth?: (host: string) => NetworkAuth;
  authToken?: string;
  noAuth?: boolean;
  /** HTTP: this replica's route name behind a balancer (the prefix of its `Mcp-Session-Id`s; default: host name and port). */
  replicaId?: string;
  /** Diagnostics (stderr in the CLI); never stdout. */
  log?: (level: 'error' | 'warn' | 'info' | 'debug', message: string) => void;
}

/** What `wrap` returns: checking `transport` gives the HTTP server's `url` as a string. */
export type McpServerHandle = McpServerHandleBase & ({ transport: 'stdio'; url?: undefined } | { transport: 'http'; /** `http://127.0.0.1:PORT/mcp`. */ url: string });

interface McpServerHandleBase {
  /** Resolves when the host disconnects (stdio) or the server closes (HTTP). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** The agent as an MCP server (`--adapter mcp`): stdio by default, streamable HTTP with `--transport http`. */
export const mcpServerAdapter: AgentAdapter<McpServerAdapterOptions, McpServerHandle> = {
  name: 'mcp',
  async wrap(agent, options = {}) {
    const config = options.config ? parseConfig(options.config) : defaultConfig();
    const settings = config.adapters.mcp;
    const cwd = options.cwd ?? process.cwd();
    const log = options.log ?? (() => undefined);
    const registry = options.registry ?? (settings.exposeRegistry ? agentRegistry(agent) : undefined);
    if (settings.exposeRegistry && !registry) log('warn', 'adapters.mcp.exposeRegistry is set but no MCP registry is available; discover/call are not offered');
    const skills = options.skills ?? (await loadSkillPrompts(config.skills, cwd));
    const factory = (principal?: string) =>
      createAgentMcpServer(agent, {
        ...(principal ? { principal } : {}),
        version: options.version,
        cwd,
        sampling: options.sampling ?? hostSampling,
        ...(settings.exposeRegistry && registry ? { registry } : {}),
        skills,
      });
    const onError = (error: Error) => log('debug', `mcp: ${error.message}`);
    const limits = jsonRpcLimits({ maxMessageBytes: settings.maxMessageBytes, maxDepth: settings.maxJsonDepth });
    const warn = (message: string) => log('warn', message);

    const transport = options.transport ?? settings.transport;
    if (transport === 'http') {
      const { serveMcpHttp } = await import('./serve-mcp-http.js');
      const host = options.host ?? settings.host;
      const server = await serveMcpHttp(factory, {
        host,
        port: options.port ?? settings.port,
        auth: options.networkAuth?.(host),
        // The config's token when a config is given (the README's "token of server.auth").
        authToken: options.authToken ?? config.server.auth.token,
        noAuth: options.noAuth,
        // Without a log of its own, a generated token is announced on stderr (see createNetworkAuth).
        ...(options.log ? { log: (message: string) => log('warn', message) } : {}),
        allowedOrigins: settings.allowedOrigins,
        onError,
        limits,
        warn,
        ...(options.replicaId === undefined ? {} : { replicaId: options.replicaId }),
      });
      log('info', `MCP over streamable HTTP at ${server.url}`);
      return { transport: 'http', url: server.url, closed: server.closed, close: () => server.close() };
    }

    const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
    const input = options.input ?? process.stdin;
    const output = options.output ?? process.stdout;
    const closed = new Promise<void>((done) => {
      input.once('end', () => done());
      input.once('close', () => done());
    });
    const handle = serveStdio(() => factory(), { transport: new BoundedStdioServerTransport(input, output, { limits, warn }), onerror: onError });
    return { transport: 'stdio', closed, close: () => handle.close() };
  },
};

/** The registry, when the agent exposes one (`agent.mcp()` of the default agent); absent otherwise. */
function agentRegistry(agent: Agent): (() => Promise<RegistryFace>) | undefined {
  const candidate = (agent as Agent & { mcp?: unknown }).mcp;
  if (typeof candidate === 'function') return () => Promise.resolve((candidate as () => Promise<RegistryFace>).call(agent));
  if (candidate && typeof (candidate as Partial<RegistryFace>).discoverRelevant === 'function') {
    return () => Promise.resolve(candidate as RegistryFace);
  }
  return undefined;
}
