import { misroutedMessage, routeOf } from '../http/replica-id.js';
import { errorResponse } from '../json-rpc/inspect-json-rpc.js';

export const CONNECTION_HEADER = 'acp-connection-id';

/** Where an incoming `Acp-Connection-Id` belongs. */
export type AcpConnectionRoute =
  /** No id: an `initialize`, or a request the SDK refuses for the missing id. */
  | { kind: 'none' }
  /** An id this replica handed out: `id` is the SDK's own, without the prefix. */
  | { kind: 'own'; id: string }
  /** An id handed out by the replica named `route`: the balancer sent it to the wrong one. */
  | { kind: 'other'; route: string }
  /** No route prefix: not an id any replica handed out; the SDK answers it as unknown. */
  | { kind: 'unprefixed'; id: string };

/** JSON-RPC's server-error range: the request never reached the connection it names. */
export const MISROUTED_CODE = -32001;

/**
 * The ids of ACP connections over streamable HTTP name the replica that holds them:
 * `<replica>.<sdk id>`. A balancer routes every request that carries one to that replica
 * (nginx: a `map` on `$http_acp_connection_id`, see deploy/nginx/plaited-agent.conf), and round
 * robin for the rest; the replica strips its prefix before the SDK sees the id.
 */
export function prefixConnectionId(replica: string, id: string): string {
  return `${replica}.${id}`;
}

export function connectionRoute(header: string | null, replica: string): AcpConnectionRoute {
  if (!header) return { kind: 'none' };
  const route = routeOf(header);
  if (route === undefined) return { kind: 'unprefixed', id: header };
  return route === replica ? { kind: 'own', id: header.slice(route.length + 1) } : { kind: 'other', route };
}

/**
 * The answer to a request that carries another replica's connection id: a JSON-RPC error (with
 * the request's id when the body names one) naming the cause and the fix, HTTP 421 Misdirected
 * Request. Never the SDK's bare "Unknown Acp-Connection-Id", which reads as a lost connection.
 */
export function misroutedResponse(route: string, replica: string, requestId: string | number | null, warn?: (message: string) => void): Response {
  warn?.(`acp: refused a request for a connection of replica "${route}" (this is "${replica}"): the balancer must route by the Acp-Connection-Id prefix`);
  const body = errorResponse(requestId, MISROUTED_CODE, misroutedMessage('Acp-Connection-Id', route, replica), { code: 'connection_misrouted', connectionReplica: route, replica });
  return new Response(JSON.stringify(body), { status: 421, headers: { 'content-type': 'application/json' } });
}

/** The SDK's `initialize` answer with its connection id behind this replica's route name. */
export function withPrefixedConnectionId(response: Response, replica: string): Response {
  const headers = new Headers(response.headers);
  headers.set(CONNECTION_HEADER, prefixConnectionId(replica, headers.get(CONNECTION_HEADER)!));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** A request's headers with the connection id as the SDK gave it (the route prefix stripped). */
export function withSdkConnectionId(headers: Headers, connectionId: string | undefined): Headers {
  const copy = new Headers(headers);
  if (connectionId !== undefined) copy.set(CONNECTION_HEADER, connectionId);
  return copy;
}

