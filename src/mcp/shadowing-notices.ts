import type { McpServerConfig, PlaitedConfig } from '../config/schema.js';
import { mcpToolPrefix } from './tool-name.js';

/**
 * What a session is told when a server its client gave it is named like one of the config's (the
 * same tool prefix): the client's is the one the session uses, the config's stays for the others.
 */
export function shadowingNotices(config: PlaitedConfig, sessionServers: readonly McpServerConfig[]): string[] {
  return sessionServers.flatMap((server) => {
    const shadowed = config.mcp.servers.find((global) => global.enabled && mcpToolPrefix(global.id) === mcpToolPrefix(server.id));
    return shadowed
      ? [
          `This session uses the MCP server "${server.id}" its client gave it (its tools ${mcpToolPrefix(server.id)}*); ` +
            `the config's server "${shadowed.id}" (mcp.servers) is left out of this session and stays for the others`,
        ]
      : [];
  });
}
