import { PlaitedError } from '../errors/plaited-error.js';

/** A local error of the agent core (string code; adapters map it onto their protocol's errors). */
export class AgentError extends PlaitedError<'session_not_found' | 'invalid_input' | 'agent_stopped' | 'agent_draining' | 'session_in_use' | 'session_busy' | 'workspace_missing'> {
  constructor(code: AgentError['code'], message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'AgentError';
  }

  static override isInstance(error: unknown): error is AgentError {
    return error instanceof Error && error.name === 'AgentError' && 'code' in error;
  }
}
