import { errorResponse } from '../json-rpc/inspect-json-rpc.js';
import { recoverJsonRpcId } from '../json-rpc/recover-json-rpc-id.js';

/** JSON-RPC's internal error: what a refused turn answers too (`data.code` names the cause). */
const INTERNAL_ERROR = -32603;

/**
 * The answer to a new ACP connection while this replica shuts down: HTTP 503 (a balancer retries
 * elsewhere) with a JSON-RPC error for the request's id, `data.code: "agent_draining"`.
 */
export function drainingRefusal(body: string): Response {
  const reply = errorResponse(
    recoverJsonRpcId(body.slice(0, 4096)),
    INTERNAL_ERROR,
    'This plaited-agent is draining (shutting down): it takes no new connections; connect to another replica, or again once this one has restarted',
    { code: 'agent_draining' },
  );
  return new Response(JSON.stringify(reply), { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5', connection: 'close' } });
}
