import type { McpServerConfig } from '../config/schema.js';
import { McpClientError } from './mcp-client-error.js';

/** `${NAME}`, or `${NAME:-default}` for a value used when NAME is unset or empty (as Claude Code's `.mcp.json`). */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * The server's config with `${NAME}` in its args, env values, url, headers and bearer token
 * replaced from the agent's environment, at each connect: a JSON config can name a secret
 * (`"Authorization": "Bearer ${DOCS_TOKEN}"`, `"env": { "GITHUB_TOKEN": "${GITHUB_TOKEN}" }`)
 * instead of holding it. A variable that is unset, with no default, is a permanent
 * `connect_failed` naming it and where it is used; the other servers start as usual.
 */
export function expandServerVariables(server: McpServerConfig, env: NodeJS.ProcessEnv = process.env): McpServerConfig {
  const expand = (value: string, where: string): string =>
    value.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new McpClientError({
        code: 'connect_failed',
        permanent: true,
        serverId: server.id,
        message: `server "${server.id}": the environment variable ${name} (used in its ${where}) is not set; set it where the agent starts, or give a default as \${${name}:-value}`,
      });
    });
  const record = (values: Record<string, string>, where: string) =>
    Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expand(value, `${where}.${key}`)]));
  return {
    ...server,
    args: server.args.map((arg, index) => expand(arg, `args[${index}]`)),
    env: record(server.env, 'env'),
    headers: record(server.headers, 'headers'),
    ...(server.url === undefined ? {} : { url: expand(server.url, 'url') }),
    ...(server.auth.type === 'bearer' ? { auth: { ...server.auth, token: expand(server.auth.token, 'auth.token') } } : {}),
  };
}
