/** `WWW-Authenticate` of every refusal (RFC 6750). */
export const BEARER_CHALLENGE = 'Bearer realm="plaited-agent"';
/** The JSON-RPC code of a refusal: ACP's "authentication required", also used by the MCP face. */
export const UNAUTHORIZED_CODE = -32000;

const MESSAGE = 'Unauthorized: send "Authorization: Bearer <token>" (the token is printed to stderr at start, or set with --auth-token / PLAITED_AUTH_TOKEN)';

/** The JSON-RPC error body of a refusal. */
const UNAUTHORIZED_BODY = JSON.stringify({ jsonrpc: '2.0', error: { code: UNAUTHORIZED_CODE, message: MESSAGE }, id: null });

/** HTTP 401 with a bearer challenge and a JSON-RPC error body. */
export function unauthorizedResponse(): Response {
  return new Response(UNAUTHORIZED_BODY, {
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': BEARER_CHALLENGE },
  });
}
