import type { Agent } from '../agent/agent.js';
import type { A2aAdapterOptions, A2aServer } from './a2a/a2a-adapter.js';
import type { AcpAdapterOptions, AcpStdioServer } from './acp/acp-adapter.js';
import type { AgentAdapter } from './agent-adapter.js';
import { lazyAdapter } from './lazy-adapter.js';
import type { McpServerAdapterOptions, McpServerHandle } from './mcp-server/mcp-server-adapter.js';
import type { SandboxAdapterOptions } from './sandbox/sandbox-adapter-options.js';

/*
 * The built-in adapters as library values (`import { acpAdapter } from 'plaited-agent'`),
 * the same ones `--adapter acp|mcp|a2a|sandbox` runs. Each loads its module on `wrap`.
 */

/** ACP over stdio (or any stream pair) or HTTP/WebSocket; resolves to the running server. */
export const acpAdapter: AgentAdapter<AcpAdapterOptions, AcpStdioServer> = lazyAdapter('acp', async () => (await import('./acp/acp-adapter.js')).acpAdapter);

/** The agent as an MCP server (stdio or HTTP); resolves to its handle. */
export const mcpAdapter: AgentAdapter<McpServerAdapterOptions, McpServerHandle> = lazyAdapter(
  'mcp',
  async () => (await import('./mcp-server/mcp-server-adapter.js')).mcpServerAdapter,
);

/** The agent as an A2A peer over HTTP (JSON-RPC and REST); resolves to the listening server. */
export const a2aAdapter: AgentAdapter<A2aAdapterOptions, A2aServer> = lazyAdapter('a2a', async () => (await import('./a2a/a2a-adapter.js')).a2aAdapter);

/** Runs each command of the agent isolated; resolves to the wrapped agent, for the next adapter. */
export const sandboxAdapter: AgentAdapter<SandboxAdapterOptions, Agent> = lazyAdapter(
  'sandbox',
  async () => (await import('./sandbox/sandbox-adapter.js')).sandboxAdapter,
);
