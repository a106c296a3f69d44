import { localhostAllowedHostnames, localhostAllowedOrigins, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { isWildcardHost } from './wildcard-host.js';

export interface HostOriginCheckOptions {
  /** Bind host. */
  host: string;
  /** Extra Origin hostnames browsers may call from (localhost ones are always allowed). */
  allowedOrigins?: readonly string[];
}

/** The two headers the check reads, as any HTTP stack gives them. */
export interface HostOriginHeaders {
  host: string | null | undefined;
  origin: string | null | undefined;
}

/** Why a request is refused (answered 403), or `undefined` when it may go on. */
export type HostOriginCheck = (headers: HostOriginHeaders) => string | undefined;


/**
 * The one DNS-rebinding guard of every HTTP face (ACP, MCP, A2A), on the MCP SDK's validators.
 * Host must name this server: localhost, or the bind host. Bound to every interface the server
 * is meant to be reached by names it cannot know, so Host is not checked then. Origin, when a
 * browser sends one, must be localhost or an allowed hostname, whatever the bind.
 */
export function createHostOriginCheck(options: HostOriginCheckOptions): HostOriginCheck {
  const wildcard = isWildcardHost(options.host);
  const allowedHosts = localhostAllowedHostnames();
  const bound = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  if (!wildcard && !allowedHosts.includes(bound)) allowedHosts.push(bound);
  const allowedOrigins = [...localhostAllowedOrigins(), ...(options.allowedOrigins ?? [])];
  return (headers) => {
    if (!wildcard) {
      const host = validateHostHeader(headers.host, allowedHosts);
      if (!host.ok) return host.message;
    }
    const origin = validateOriginHeader(headers.origin, allowedOrigins);
    return origin.ok ? undefined : origin.message;
  };
}

/** `http://host:port` for a listening server (a wildcard bind is reached through 127.0.0.1). */
export function serverOrigin(host: string, port: number): string {
  const urlHost = isWildcardHost(host) ? '127.0.0.1' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${urlHost}:${port}`;
}
