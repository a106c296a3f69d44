/** `WWW-Authenticate` of every refusal (RFC 6750). */
export const BEARER_CHALLENGE = 'Bearer realm="plaited-agent"';
/** The JSON-RPC code of a refusal: ACP's "authentication required", also used by the MCP face. */
export const UNAUTHORIZED_CODE = -32000;

const MESSAGE = 'Unauthorized: send "Authorization: Bearer <token>" (the token is printed to stderr at start, or set with --auth-token / PLAITED_AUTH_TOKEN)';

/** The JSON-RPC error body of a refusal. */
export const UNAUTHORIZED_BODY = JSON.stringify({ jsonrpc: '2.0', error: { code: UNAUTHORIZED_CODE, message: MESSAGE }, id: null });

/** HTTP 401 with a bearer challenge and a JSON-RPC error body. */
export function unauthorizedResponse(): Response {
  return new Response(UNAUTHORIZED_BODY, {
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': BEARER_CHALLENGE },
  });
}

/** The raw reply refusing a WebSocket upgrade, written before the socket is closed. */
export function unauthorizedUpgradeReply(): string {
  const body = UNAUTHORIZED_BODY;
  return [
    'HTTP/1.1 401 Unauthorized',
    `WWW-Authenticate: ${BEARER_CHALLENGE}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
