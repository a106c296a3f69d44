import type { NetworkAuth } from './network-auth.js';

/**
 * Browsers cannot set headers on a WebSocket, so the token may come as a subprotocol
 * `bearer.<token>` offered beside the real one (as Kubernetes does). Chosen over `?token=`
 * because a query string lands in access logs, proxies and browser history; a subprotocol does not.
 */
export const BEARER_SUBPROTOCOL_PREFIX = 'bearer.';

/** What the check reads from a request (HTTP or a WebSocket upgrade). */
export interface CredentialHeaders {
  authorization: string | null | undefined;
  /** `Sec-WebSocket-Protocol` of a WebSocket upgrade, comma-separated; never pass it for a plain HTTP request. */
  webSocketProtocol?: string | null | undefined;
}

/** The principal a request speaks for, or `undefined` when its credentials are missing or wrong. */
export function requestPrincipal(auth: NetworkAuth, headers: CredentialHeaders): string | undefined {
  if (headers.authorization) return auth.authenticate(headers.authorization);
  const offered = parseProtocols(headers.webSocketProtocol).find((protocol) => protocol.startsWith(BEARER_SUBPROTOCOL_PREFIX));
  return offered ? auth.authenticateToken(offered.slice(BEARER_SUBPROTOCOL_PREFIX.length)) : auth.authenticate(undefined);
}

/**
 * The subprotocol to answer an upgrade with: the first one that is not a credential, else the
 * credential itself (a browser that offered only it fails the handshake unless one is echoed).
 */
export function selectSubprotocol(protocols: Iterable<string>): string | false {
  const list = [...protocols];
  return list.find((protocol) => !protocol.startsWith(BEARER_SUBPROTOCOL_PREFIX)) ?? list[0] ?? false;
}

function parseProtocols(header: string | null | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol.length > 0);
}
