/** `WWW-Authenticate` of every refusal (RFC 6750). */
export const BEARER_CHALLENGE = 'Bearer realm="plaited-agent"';
/** The JSON-RPC code of a refusal: ACP's "authentication required", also used by the MCP face. */
export const UNAUTHORIZED_CODE = -32000;

/** What a refused client is told: the header, and where the server's token comes from (never the `--auth-token` flag `ps` shows). */
export const UNAUTHORIZED_MESSAGE =
  'Unauthorized: send "Authorization: Bearer <token>" with the server\'s token (its --auth-token-file, PLAITED_AUTH_TOKEN or server.auth.token; without one it generated a token and printed it to its stderr at start)';

/** The JSON-RPC error body of a refusal. */
const UNAUTHORIZED_BODY = JSON.stringify({ jsonrpc: '2.0', error: { code: UNAUTHORIZED_CODE, message: UNAUTHORIZED_MESSAGE }, id: null });

/** HTTP 401 with a bearer challenge and a JSON-RPC error body. */
export function unauthorizedResponse(): Response {
  return new Response(UNAUTHORIZED_BODY, {
    status: 401,
    headers: { 'content-type': 'application/json', 'www-authenticate': BEARER_CHALLENGE },
  });
}
