import type { McpServerConfig, PlaitedConfig } from '../../config/schema.js';
import type { PreparedServer } from '../../mcp/mcp-registry-types.js';
import { commandLayerFor } from './command-layer.js';
import { McpClientError } from '../../mcp/mcp-client-error.js';
import { commandLineTooLong } from '../../mcp/command-line-limits.js';
import { errorMessage } from '../../errors/error-message.js';

/**
 * A stdio MCP server's command, wrapped to run where the config says (`scope`: the session's cwd
 * and roots), and its `release` for when the server is gone for good.
 */
export type PrepareStdioServer = (server: McpServerConfig, scope: { cwd?: string; roots?: readonly string[] }) => Promise<PreparedServer>;

/** Stdio MCP servers run like bash commands: under the command sandbox when it is on, else under the read-only layer. */
export function prepareStdioServer(config: PlaitedConfig, projectDir: string, log: (level: 'info', message: string) => void): PrepareStdioServer {
  return config.adapters.sandbox.commands ? sandboxStdioServer(config, projectDir) : layeredStdioServer(config, projectDir, log);
}

/** Per-command sandbox mode: stdio MCP servers run under the same policy as bash commands. */
function sandboxStdioServer(config: PlaitedConfig, projectDir: string): PrepareStdioServer {
  return async (server: McpServerConfig, scope: { cwd?: string; roots?: readonly string[] }): Promise<PreparedServer> => {
    if (server.transport !== 'stdio' || !server.command) return { config: server };
    const { wrapCommandForSandbox } = await import('./wrap-command-for-sandbox.js');
    const { sandboxPolicyFromConfig } = await import('./sandbox-policy.js');
    const cwd = scope.cwd ?? projectDir;
    // The session's other roots (ACP additionalDirectories) are workspace for its servers too.
    const additionalRoots = (scope.roots ?? []).filter((root) => root !== cwd);
    const wrapped = await wrapCommandForSandbox(server.command, server.args, sandboxPolicyFromConfig(config, cwd, { additionalRoots }))
      .catch((error: unknown) => {
        // The sandbox library measures its line before anything runs: said as the kernel's limit would be.
        if ((error as { code?: unknown }).code !== 'command_too_long') throw error;
        throw new McpClientError({ code: 'connect_failed', serverId: server.id, permanent: true, cause: error, message: commandLineTooLong(server.id, errorMessage(error)) });
      });
    return { config: { ...server, command: wrapped.command, args: wrapped.args }, release: wrapped.release };
  };
}

/** Without the command sandbox: stdio MCP servers run under the read-only layer, like bash commands. */
function layeredStdioServer(config: PlaitedConfig, projectDir: string, log: (level: 'info', message: string) => void): PrepareStdioServer {
  return async (server: McpServerConfig, scope: { cwd?: string; roots?: readonly string[] }): Promise<PreparedServer> => {
    const layer = server.transport === 'stdio' && server.command ? commandLayerFor(config, (message) => log('info', message)) : null;
    if (!layer || !server.command) return { config: server };
    const cwd = scope.cwd ?? projectDir;
    const wrapped = await layer.wrapArgv([server.command, ...server.args], [cwd, ...(scope.roots ?? []).filter((root) => root !== cwd)]);
    const [command, ...args] = wrapped.argv;
    return { config: { ...server, command: command!, args }, release: wrapped.release };
  };
}

