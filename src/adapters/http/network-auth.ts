import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LOCAL_PRINCIPAL } from '../../agent/owned-sessions.js';
import { isLoopbackHost } from './loopback-host.js';
import { NetworkAuthError } from './network-auth-error.js';

/** The principal of stdio clients, of the main token, and of every client under `--no-auth`. */
export { LOCAL_PRINCIPAL };
/** Shorter tokens are refused: a bearer token is the only thing between the network and the user's files. */
export const MIN_TOKEN_LENGTH = 16;

export interface NetworkAuthOptions {
  /** From --auth-token-file (or --auth-token), PLAITED_AUTH_TOKEN, or config (the CLI resolves precedence); generated when absent. */
  token?: string;
  /** --no-auth: only allowed with a loopback host, else throws NetworkAuthError. */
  noAuth?: boolean;
  /** Bind host. */
  host: string;
  /** Where a generated token is announced; default: stderr. */
  log?: (message: string) => void;
  /** Where `token` came from (`PLAITED_AUTH_TOKEN`, …), named when it is refused as too weak. */
  tokenSource?: string;
  /** Extra principals, each with its own token (config `server.auth.principals`): they see only their own sessions. */
  principals?: Readonly<Record<string, string>>;
}

export interface NetworkAuth {
  readonly enabled: boolean;
  /** The main token (the local user's); `undefined` under --no-auth. In-process only: never sent anywhere. */
  readonly token: string | undefined;
  /** Principal id for an Authorization header value ("Bearer <token>"), or undefined when refused. Constant-time. */
  authenticate(authorization: string | null | undefined): string | undefined;
  /** Principal id for a bare token (the WebSocket subprotocol fallback), or undefined when refused. Constant-time. */
  authenticateToken(token: string | null | undefined): string | undefined;
}

/** Token characters: what a header value and a WebSocket subprotocol can both carry (RFC 7230 tchar). */
const TOKEN_CHARS = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Bearer-token authentication for the network faces (ACP and MCP over HTTP/WebSocket, A2A).
 * Tokens are compared as SHA-256 digests with `timingSafeEqual`, and every configured token
 * is compared on every call, so the time taken says nothing about which (or how much of one) matched.
 */
export function createNetworkAuth(options: NetworkAuthOptions): NetworkAuth {
  if (options.noAuth) {
    if (!isLoopbackHost(options.host)) {
      throw new NetworkAuthError(
        'no_auth_not_loopback',
        `--no-auth is only allowed with a loopback host (127.0.0.1, ::1, localhost); the bind host is ${options.host}. Pass a token instead (--auth-token-file or PLAITED_AUTH_TOKEN).`,
      );
    }
    return { enabled: false, token: undefined, authenticate: () => LOCAL_PRINCIPAL, authenticateToken: () => LOCAL_PRINCIPAL };
  }

  let token = options.token;
  if (token === undefined || token === '') {
    token = randomBytes(32).toString('base64url');
    // Said even when no log was given (a face served from a program): a token nobody is told opens nothing.
    const announce = options.log ?? ((message: string) => process.stderr.write(`[plaited-agent] ${message}\n`));
    announce(`network auth token (generated): ${token}  (clients send "Authorization: Bearer <token>"; set your own with --auth-token-file or PLAITED_AUTH_TOKEN)`);
  }
  const mainLabel = options.tokenSource === undefined ? `the auth token of principal "${LOCAL_PRINCIPAL}"` : `the auth token from ${options.tokenSource}`;
  const entries: Array<{ principal: string; digest: Buffer }> = [{ principal: LOCAL_PRINCIPAL, digest: checkedDigest(mainLabel, token) }];
  for (const [principal, secret] of Object.entries(options.principals ?? {})) {
    if (principal === LOCAL_PRINCIPAL || principal.length === 0) {
      throw new NetworkAuthError('invalid_principals', `principal name "${principal}" is reserved or empty; the main token is the "${LOCAL_PRINCIPAL}" principal`);
    }
    const digest = checkedDigest(`the auth token of principal "${principal}"`, secret);
    if (entries.some((entry) => entry.digest.equals(digest))) {
      throw new NetworkAuthError('invalid_principals', `principal "${principal}" has the same token as another principal`);
    }
    entries.push({ principal, digest });
  }

  const authenticateToken = (candidate: string | null | undefined): string | undefined => {
    if (!candidate) return undefined;
    const digest = sha256(candidate);
    let found: string | undefined;
    // No early exit: every entry is compared whatever matched.
    for (const entry of entries) if (timingSafeEqual(entry.digest, digest) && found === undefined) found = entry.principal;
    return found;
  };
  return {
    enabled: true,
    token,
    authenticateToken,
    authenticate(authorization) {
      const match = authorization ? BEARER.exec(authorization) : null;
      return authenticateToken(match?.[1]);
    },
  };
}

function checkedDigest(label: string, secret: string): Buffer {
  if (secret.length < MIN_TOKEN_LENGTH || !TOKEN_CHARS.test(secret)) {
    throw new NetworkAuthError(
      'weak_token',
      `${label} must be at least ${MIN_TOKEN_LENGTH} characters of letters, digits or !#$%&'*+.^_\`|~- (e.g. \`openssl rand -base64 32 | tr '+/' '-_' | tr -d =\`)`,
    );
  }
  return sha256(secret);
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
