import type { AgentErrorInfo } from '../../contracts/agent-output.js';

/** JSON-RPC's codes: bad input the client can fix, and everything else. */
export const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/**
 * A turn's error as a JSON-RPC error object, one shape for v1 (the failed `session/prompt`) and the
 * v2 draft (its `idle` state's `error`): input the user can fix (a command's missing argument) is
 * -32602, the rest -32603; `data` carries the agent's own code and, for a model call, its `reason`
 * (a refused key or an unreachable endpoint under one `model_call_failed`).
 */
export function acpTurnError(error: AgentErrorInfo): { code: number; message: string; data: { code: string; reason?: string } } {
  return {
    code: error.code === 'invalid_input' ? INVALID_PARAMS : INTERNAL_ERROR,
    message: error.message,
    data: { code: error.code, ...(error.reason ? { reason: error.reason } : {}) },
  };
}
