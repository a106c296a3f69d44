import type { SessionManager } from '../../agent/agent.js';

/**
 * `session/close` and `session/delete`, the same in ACP v1 and the v2 draft. Both first stop
 * the connection's live turns (`stopSession`), so no update follows the answer. Close needs a
 * session this principal owns (`requireSession` throws the version's "not found"); delete of
 * an unknown session, or another principal's, succeeds silently as the spec asks.
 */
export function acpSessionEnd(deps: {
  owned: Pick<SessionManager, 'get' | 'close' | 'delete'>;
  requireSession: (sessionId: string) => Promise<unknown>;
  stopSession: (sessionId: string) => Promise<void>;
}) {
  return {
    close: async ({ params }: { params: { sessionId: string } }) => {
      await deps.requireSession(params.sessionId);
      await deps.stopSession(params.sessionId);
      await deps.owned.close(params.sessionId);
      return {};
    },
    delete: async ({ params }: { params: { sessionId: string } }) => {
      if (!(await deps.owned.get(params.sessionId))) return {};
      await deps.stopSession(params.sessionId);
      await deps.owned.delete(params.sessionId);
      return {};
    },
  };
}
