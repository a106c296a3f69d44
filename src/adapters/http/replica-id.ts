import { REPLICA_ID_PATTERN } from '../../config/schema.js';
import { PlaitedError } from '../../errors/plaited-error.js';

/** The response header naming the replica that answered (every HTTP response and WebSocket upgrade). */
export const REPLICA_HEADER = 'plaited-replica';


/**
 * The replica's route name when none is configured: the machine's host name and the port it
 * listens on (`web-1-3284`), unique among replicas on one machine or in one container network.
 */
export function defaultReplicaId(hostname: string, port: number): string {
  const host = hostname.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 56) || 'replica';
  return `${host}-${port}`;
}

/** The part of a routed id (`<replica>.<id>`) before its first `.`, when it has one. */
export function routeOf(id: string): string | undefined {
  const dot = id.indexOf('.');
  return dot > 0 ? id.slice(0, dot) : undefined;
}

/** Why a request with another replica's id (in `header`) is refused, and what the operator must change. */
export function misroutedMessage(header: string, route: string, replica: string): string {
  return (
    `Misrouted request: this ${header} belongs to replica "${route}", but the request reached replica "${replica}". ` +
    `Behind a load balancer, route every request that carries an ${header} to the replica named by its prefix (the part before the first "."), ` +
    'and only the others round robin (README: "Deploying several replicas"; nginx: deploy/nginx/plaited-agent.conf).'
  );
}

/** The configured route name, checked: a server refuses to start with one a balancer could not route by. */
export function checkReplicaId(id: string): string {
  if (!REPLICA_ID_PATTERN.test(id)) {
    throw new PlaitedError('invalid_replica_id', `the replica id ${JSON.stringify(id)} must be 1 to 63 letters, digits, "-" or "_" (no "."): it prefixes the ACP connection ids the balancer routes by (--replica-id, PLAITED_REPLICA_ID or config server.replicaId)`, {
      context: { replicaId: id },
    });
  }
  return id;
}
