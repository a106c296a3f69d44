import type { ServerState } from './load-server-catalog.js';
import type { McpServerInfo } from './mcp-registry-types.js';

/** What the registry reports about one server: its config, connection status and catalog sizes. */
export function serverInfo(state: ServerState): McpServerInfo {
  return {
    id: state.config.id,
    ...(state.sessionId ? { sessionId: state.sessionId } : {}),
    config: state.config,
    status: state.client.status,
    ...(state.client.lastError ? { error: state.client.lastError } : {}),
    identity: state.client.identity(),
    tools: state.tools.size,
    resources: state.resources.length,
    resourceTemplates: state.templates.length,
    prompts: state.prompts.size,
  };
}
