import type { PlaitedConfig } from '../config/schema.js';

/** The credentials a config holds (model keys and headers, MCP tokens, env and headers, the server's tokens): kept out of the logs. */
export function configSecrets(config: PlaitedConfig): string[] {
  const values: Array<string | undefined> = [config.agent.apiKey, ...Object.values(config.agent.headers ?? {})];
  for (const model of config.agent.models) values.push(model.apiKey);
  for (const server of config.mcp.servers) {
    values.push(...Object.values(server.env), ...Object.values(server.headers));
    if (server.auth.type === 'bearer') values.push(server.auth.token);
    if (server.auth.type === 'oauth') values.push(server.auth.clientSecret);
  }
  values.push(config.server.auth.token, ...Object.values(config.server.auth.principals));
  return values.filter((value): value is string => typeof value === 'string');
}
