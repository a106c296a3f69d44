import type { ExecResult } from '../../contracts/runtime.js';
import type { SandboxFinding } from './explain-sandbox-failure.js';
import { PlaitedError } from '../../errors/plaited-error.js';

/**
 * A sandboxed command or file access was stopped by the policy or a limit. The
 * message leads with the reasons ("blocked by sandbox: write to /etc/passwd",
 * "killed: memory limit 256 MB exceeded") and then keeps the command's own
 * output, so the model sees both why and what happened.
 */
export class SandboxViolationError extends PlaitedError<'sandbox_violation'> {
  readonly findings: SandboxFinding[];
  /** The command's result, when a command ran. */
  readonly result?: ExecResult;

  constructor(details: { findings: SandboxFinding[]; result?: ExecResult }, options?: { cause?: unknown }) {
    const reasons = details.findings.map((finding) => finding.message).join('\n');
    const output = details.result?.output.trim();
    super('sandbox_violation', output ? `${reasons}\n\n${output}` : reasons, options);
    this.name = 'SandboxViolationError';
    this.findings = details.findings;
    this.result = details.result;
  }

  static override isInstance(value: unknown): value is SandboxViolationError {
    return value instanceof Error && (value as { code?: unknown }).code === 'sandbox_violation';
  }
}
