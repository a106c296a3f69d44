import type { AgentOutput } from '../../contracts/agent-output.js';

export type PermissionRequestEvent = Extract<AgentOutput, { type: 'permission-request' }>;

/**
 * Answers the agent's permission question with the client's answer (`ask` sends the version's
 * `session/request_permission`); a failed request counts as a rejection. On cancel the core stops
 * waiting by itself, and the spec has the client answer `cancelled`.
 */
export async function bridgePermission(
  event: PermissionRequestEvent,
  signal: AbortSignal,
  ask: (options: { cancellationSignal: AbortSignal } | undefined) => Promise<{ outcome: unknown }>,
): Promise<void> {
  try {
    // When the question stops mattering (cancel, or a steering prompt superseded the call), the client is told with $/cancel_request.
    const response = await ask(event.signal ? { cancellationSignal: event.signal } : undefined);
    const outcome = response.outcome as { outcome: string; optionId?: string };
    event.respond(outcome.outcome === 'selected' && outcome.optionId ? { outcome: 'selected', optionId: outcome.optionId } : { outcome: 'cancelled' });
  } catch {
    event.respond(signal.aborted ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: 'reject-once' });
  }
}
