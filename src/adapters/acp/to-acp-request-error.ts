import * as acp from '@agentclientprotocol/sdk';
import { AgentError } from '../../agent/agent-error.js';

/**
 * The core's own errors in ACP's shape, as `session/prompt` reports them: `-32603` with the
 * reason in `data.code` and the explanation in the message (not a bare "Internal error").
 */
export function toAcpRequestError(error: unknown, sessionId: string): unknown {
  if (!AgentError.isInstance(error)) return error;
  if (error.code === 'session_not_found') return acp.RequestError.sessionNotFound(sessionId);
  // A state of the session, not a fault: the message names the fix.
  if (error.code === 'session_busy') return acp.RequestError.invalidParams({ code: error.code, sessionId }, error.message);
  return acp.RequestError.internalError({ code: error.code }, error.message);
}
