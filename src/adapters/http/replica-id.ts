import { PlaitedError } from '../../errors/plaited-error.js';

/** The response header naming the replica that answered (every HTTP response and WebSocket upgrade). */
export const REPLICA_HEADER = 'plaited-replica';

/** Letters, digits, `-` and `_`: no `.` (it ends the prefix of an ACP connection id), safe in a header and an nginx map. */
const REPLICA_ID = /^[A-Za-z0-9_-]{1,63}$/;

/**
 * The replica's route name when none is configured: the machine's host name and the port it
 * listens on (`web-1-3284`), unique among replicas on one machine or in one container network.
 */
export function defaultReplicaId(hostname: string, port: number): string {
  const host = hostname.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 56) || 'replica';
  return `${host}-${port}`;
}

/** The configured route name, checked: a server refuses to start with one a balancer could not route by. */
export function checkReplicaId(id: string): string {
  if (!REPLICA_ID.test(id)) {
    throw new PlaitedError('invalid_replica_id', `the replica id ${JSON.stringify(id)} must be 1 to 63 letters, digits, "-" or "_" (no "."): it prefixes the ACP connection ids the balancer routes by (--replica-id, PLAITED_REPLICA_ID or config server.replicaId)`, {
      context: { replicaId: id },
    });
  }
  return id;
}
