import { PlaitedError } from '../../errors/plaited-error.js';

/**
 * Isolation was required (production, or `adapters.sandbox.required`) but this
 * machine cannot provide it. The message carries the reason and the fix, since
 * it is what an operator reads when the agent refuses to start.
 */
export class SandboxUnavailableError extends PlaitedError<'sandbox_unavailable'> {
  readonly reason: string;
  readonly fix: string;
  readonly requiredBy: string;

  constructor(details: { reason: string; fix: string; requiredBy: string }, options?: { cause?: unknown }) {
    super('sandbox_unavailable', `sandbox required (${details.requiredBy}) but unavailable: ${details.reason}. Fix: ${details.fix}`, options);
    this.name = 'SandboxUnavailableError';
    this.reason = details.reason;
    this.fix = details.fix;
    this.requiredBy = details.requiredBy;
  }

  static override isInstance(value: unknown): value is SandboxUnavailableError {
    return value instanceof Error && (value as { code?: unknown }).code === 'sandbox_unavailable';
  }
}
