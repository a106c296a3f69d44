import type { PlaitedConfig } from '../config/schema.js';
import type { DefaultAgent } from '../default-agent.js';

/** A configured MCP server as the terminal commands show it. */
export interface McpServerState {
  id: string;
  /** `connected`, `failed`, `reconnecting`, …, or `disabled`. */
  state: string;
  tools: number;
  lastError?: string;
}

/**
 * Starts the project's configured MCP servers (as a session would) and reports each one once its
 * first connect settled, or after `timeoutMs` (then it is still `connecting`).
 */
export async function mcpServerStates(agent: DefaultAgent, config: PlaitedConfig, timeoutMs: number): Promise<McpServerState[]> {
  if (config.mcp.servers.length === 0) return [];
  const registry = await agent.mcp();
  // The config's servers are added in the background: wait until each is listed, then until each first connect (and catalog) settled.
  const deadline = Date.now() + timeoutMs;
  const enabled = config.mcp.servers.filter((server) => server.enabled);
  while (Date.now() < deadline && !enabled.every((server) => registry.servers.get(server.id) !== undefined)) {
    await new Promise((done) => setTimeout(done, 50));
  }
  await registry.servers.settled(Math.max(0, deadline - Date.now()));
  return config.mcp.servers.map((server) => {
    if (!server.enabled) return { id: server.id, state: 'disabled', tools: 0 };
    const info = registry.servers.get(server.id);
    if (!info) return { id: server.id, state: 'not started', tools: 0 };
    return { id: server.id, state: info.status, tools: info.tools, ...(info.error ? { lastError: info.error.message.split('\n')[0]! } : {}) };
  });
}

/** Whether a server is as configured: connected, or disabled on purpose. Anything else fails `doctor` and `mcp list`. */
export function serverIsUp(server: McpServerState): boolean {
  return server.state === 'connected' || server.state === 'disabled';
}

/** What to check when a server is not up (the line `doctor` and `mcp list` print). */
export function serverFix(server: McpServerState): string {
  return `check mcp.servers "${server.id}" (command, url, auth) in the config`;
}
