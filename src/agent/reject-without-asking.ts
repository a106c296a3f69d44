import type { PermissionDecision, PermissionOption } from '../contracts/agent-output.js';

/**
 * The answer of a face that has no one to ask (a headless run, a host without elicitation, a
 * question that timed out): reject once, saying why, so the model is not told a person said no.
 * `reason` reads after "Not run: " (no final period).
 */
export function rejectWithoutAsking(options: readonly PermissionOption[], reason: string): PermissionDecision {
  const reject = options.find((option) => option.kind === 'reject_once') ?? options.find((option) => option.kind.startsWith('reject'));
  return reject ? { outcome: 'selected', optionId: reject.optionId, reason } : { outcome: 'cancelled' };
}
