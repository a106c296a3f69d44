import { createNetworkAuth, type NetworkAuth } from '../adapters/http/network-auth.js';
import type { PlaitedConfig } from '../config/schema.js';
import type { CliArgs } from './parse-cli-args.js';

/**
 * The network auth of this process's HTTP faces, built when the first one starts (a stdio-only
 * run never generates or prints a token). Token: `--auth-token`, then `PLAITED_AUTH_TOKEN`, then
 * config `server.auth.token`, else generated once and shared by every face (ACP and MCP over
 * HTTP in one process take the same token).
 */
export function networkAuthSource(
  config: PlaitedConfig,
  args: Pick<CliArgs, 'authToken' | 'noAuth'>,
  env: NodeJS.ProcessEnv,
  announce: (message: string) => void,
): (host: string) => NetworkAuth {
  let token = args.authToken ?? (env.PLAITED_AUTH_TOKEN || undefined) ?? config.server.auth.token;
  return (host) => {
    const auth = createNetworkAuth({ host, token, noAuth: args.noAuth, principals: config.server.auth.principals, log: announce });
    token ??= auth.token;
    return auth;
  };
}
