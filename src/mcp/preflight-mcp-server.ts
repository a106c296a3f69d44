import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { McpServerConfig } from '../config/schema.js';
import { toolEnvironment } from '../tools/secret-env.js';
import { McpClientError } from './mcp-client-error.js';
import { oversizedArgument } from './command-line-limits.js';

/**
 * What is wrong with a server's config before anything starts: a stdio command that is not on
 * the server's PATH (or not executable), an argument too long for the system to start it with,
 * an HTTP server without a valid URL. Checked on the
 * config as written, before the sandbox wraps the command (wrapped, a missing command only
 * shows as a closed connection). A `connect_failed` error marked `permanent` (not retried for
 * long), or `undefined` when nothing is wrong.
 */
export function preflightMcpServer(server: McpServerConfig): McpClientError | undefined {
  const bad = (message: string) => new McpClientError({ code: 'connect_failed', permanent: true, serverId: server.id, message: `server "${server.id}": ${message}` });
  if (server.transport !== 'stdio') {
    try {
      const url = new URL(server.url ?? '');
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return bad(`url "${server.url}" is not http(s); fix mcp.servers[].url`);
    } catch {
      return bad(`url "${server.url ?? ''}" is not a valid URL; fix mcp.servers[].url`);
    }
    return undefined;
  }
  const command = server.command ?? '';
  if (command === '') return bad('has no command; set mcp.servers[].command');
  const oversized = oversizedArgument(server);
  if (oversized) return bad(`cannot start: ${oversized}`);
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(server.cwd ?? process.cwd(), command);
    return executable(path) ? undefined : bad(`command "${command}" was not found or is not executable (${path}); fix mcp.servers[].command`);
  }
  const PATH = server.env.PATH ?? toolEnvironment().PATH ?? '';
  const found = PATH.split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)));
  return found ? undefined : bad(`command "${command}" was not found on PATH; install it or fix mcp.servers[].command`);
}

function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
