import type { PermissionDecision, PermissionOption } from '../contracts/agent-output.js';

/**
 * The question's "reject once" answer (else its first reject; `cancelled` when it offers none).
 * `reason`, when no person chose it (a headless run, a host without elicitation, a question that
 * timed out), is what the model is told instead of "the user rejected": it reads after "Not run: "
 * (no final period).
 */
export function rejectOnce(options: readonly PermissionOption[], reason?: string): PermissionDecision {
  const reject = options.find((option) => option.kind === 'reject_once') ?? options.find((option) => option.kind.startsWith('reject'));
  if (!reject) return { outcome: 'cancelled' };
  return { outcome: 'selected', optionId: reject.optionId, ...(reason ? { reason } : {}) };
}
