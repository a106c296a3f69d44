import * as acp from '@agentclientprotocol/sdk';
import { PlaitedError } from '../../errors/plaited-error.js';
import { redactedForClient } from '../internal-error-message.js';

/**
 * The project's own errors in ACP's shape, as `session/prompt` reports them: `-32603` with the
 * reason in `data.code` and the explanation in the message (not a bare "Internal error"). Every
 * layer's error qualifies (a core error, a store that cannot be opened): its message names the
 * cause and the fix, which a generic "retry it" would contradict. Anything else passes through,
 * to be answered as an unexpected failure.
 */
export function toAcpRequestError(error: unknown, sessionId: string): unknown {
  if (!PlaitedError.isInstance(error)) return error;
  if (error.code === 'session_not_found') return acp.RequestError.sessionNotFound(sessionId);
  // A state of the session, not a fault: the message names the fix.
  if (error.code === 'session_busy') return acp.RequestError.invalidParams({ code: error.code, sessionId }, error.message);
  return acp.RequestError.internalError({ code: error.code }, redactedForClient(error.message));
}
