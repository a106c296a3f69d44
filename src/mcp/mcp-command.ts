import type { ExtensionCommand } from '../agent/extension-command.js';
import type { McpRegistry } from './mcp-registry.js';
import type { McpServerInfo } from './mcp-registry-types.js';

/**
 * `/mcp`: the session's MCP servers (the config's and its own) with their state, catalog size
 * and last error, answered by the agent itself.
 */
export function mcpCommand(registry: McpRegistry): ExtensionCommand {
  return {
    name: 'mcp',
    description: 'List the MCP servers of this session with their state and last error',
    run(argument, session) {
      if (argument !== '' && argument !== 'list') return `Unknown /mcp argument "${argument}". Use \`/mcp\` to list the servers.`;
      const servers = registry.servers.list({ sessionId: session.sessionId });
      if (servers.length === 0) return 'No MCP servers are configured (add them under mcp.servers in .plaited/config, or send them with the session).';
      return ['MCP servers:', ...servers.map(describeServer)].join('\n');
    },
  };
}

function describeServer(server: McpServerInfo): string {
  const origin = server.sessionId ? 'session' : 'config';
  // A stdio command is shown by the error, if any: here it may be wrapped by the sandbox.
  const where = server.config.transport === 'stdio' ? '' : ` ${server.config.url ?? ''}`;
  const state = server.config.enabled ? server.status : 'disabled';
  const catalog = server.status === 'connected' ? `, ${server.tools} tools, ${server.resources} resources, ${server.prompts} prompts` : '';
  const error = server.error ? `\n  last error (${server.error.code}): ${server.error.message}` : '';
  const retry = server.status === 'failed' ? '\n  not retried any more: fix it and restart the agent (or the session, for a session server)' : '';
  return `- ${server.id} (${origin}, ${server.config.transport}${where}): ${state}${catalog}${error}${retry}`;
}
