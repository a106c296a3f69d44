import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createNetworkAuth, type NetworkAuth } from '../adapters/http/network-auth.js';
import type { PlaitedConfig } from '../config/schema.js';
import { errorMessage } from '../errors/error-message.js';
import { CliUsageError, type CliArgs } from './parse-cli-args.js';

/**
 * The network auth of this process's HTTP faces, built when the first one starts (a stdio-only
 * run never generates or prints a token). Token: the command line's (`commandLineToken`), then
 * `PLAITED_AUTH_TOKEN`, then config `server.auth.token`, else generated once and shared by every
 * face (ACP and MCP over HTTP in one process take the same token).
 */
export function networkAuthSource(
  config: PlaitedConfig,
  args: Pick<CliArgs, 'noAuth'> & { token?: string },
  env: NodeJS.ProcessEnv,
  announce: (message: string) => void,
): (host: string) => NetworkAuth {
  let token = args.token ?? (env.PLAITED_AUTH_TOKEN || undefined) ?? config.server.auth.token;
  // Named when the token is refused, so the operator knows which one to replace.
  const tokenSource = args.token !== undefined ? '--auth-token-file (or --auth-token)' : env.PLAITED_AUTH_TOKEN ? 'PLAITED_AUTH_TOKEN' : 'config server.auth.token';
  return (host) => {
    const auth = createNetworkAuth({ host, token, tokenSource, noAuth: args.noAuth, principals: config.server.auth.principals, log: announce });
    // Replicas share a store; a token each generates differs, so a client's opens only one of them.
    if (token === undefined && auth.token !== undefined && config.storage.url !== undefined) {
      announce('this replica generated its own token, but it shares a PostgreSQL store with others: give every replica the same PLAITED_AUTH_TOKEN (or --auth-token-file), or a client is refused by all but one');
    }
    token ??= auth.token;
    return auth;
  };
}

/**
 * The token named on the command line: read from `--auth-token-file` (its first line), or given
 * with `--auth-token`, which works but is announced as visible to every local user. Throws
 * CliUsageError for both at once, or for a file that cannot be read or holds no token.
 */
export function commandLineToken(args: Pick<CliArgs, 'authToken' | 'authTokenFile'>, cwd: string, warn: (message: string) => void): string | undefined {
  if (args.authToken !== undefined && args.authTokenFile !== undefined) throw new CliUsageError('pass --auth-token-file or --auth-token, not both');
  if (args.authToken !== undefined) {
    warn('--auth-token puts the token on the command line, where every local user can read it (/proc/<pid>/cmdline, ps); use --auth-token-file FILE or PLAITED_AUTH_TOKEN instead');
    return args.authToken;
  }
  if (args.authTokenFile === undefined) return undefined;
  const file = resolve(cwd, args.authTokenFile);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliUsageError(`--auth-token-file ${file} cannot be read (${errorMessage(error)}); write the token into it (one line), or set PLAITED_AUTH_TOKEN`);
  }
  const token = text.split(/\r?\n/)[0]!.trim();
  if (token === '') throw new CliUsageError(`--auth-token-file ${file} is empty; write the token on its first line`);
  if ((statSync(file).mode & 0o077) !== 0) warn(`--auth-token-file ${file} can be read by other users; chmod 600 it`);
  return token;
}
