import type { SessionManager } from '../../agent/agent.js';
import { toAcpRequestError } from './to-acp-request-error.js';

/**
 * The session manager with every failure in ACP's shape: a core error (`agent_draining`,
 * `session_in_use`, `workspace_missing` …) reaches the client with its code in `data.code` and
 * its explanation, whichever request met it, instead of the SDK's "Internal error".
 */
export function acpShapedSessions(sessions: SessionManager): SessionManager {
  return new Proxy(sessions, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const sessionId = typeof args[0] === 'string' ? args[0] : '';
        try {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result instanceof Promise
            ? result.catch((error: unknown) => {
                throw toAcpRequestError(error, sessionId);
              })
            : result;
        } catch (error) {
          throw toAcpRequestError(error, sessionId);
        }
      };
    },
  });
}
