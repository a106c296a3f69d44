/** A local error of the agent core (string code; adapters map it onto their protocol's errors). */
export class AgentError extends Error {
  readonly code: 'session_not_found' | 'invalid_input' | 'agent_stopped' | 'session_in_use';

  constructor(code: AgentError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AgentError';
    this.code = code;
  }

  static isInstance(error: unknown): error is AgentError {
    return error instanceof Error && error.name === 'AgentError' && 'code' in error;
  }
}
