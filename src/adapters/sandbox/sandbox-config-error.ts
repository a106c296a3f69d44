import { PlaitedError } from '../../errors/plaited-error.js';

/** An `adapters.sandbox` setting that cannot be applied (a malformed size, say). */
export class SandboxConfigError extends PlaitedError<'sandbox_config_invalid'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('sandbox_config_invalid', message, options);
    this.name = 'SandboxConfigError';
  }

  static override isInstance(value: unknown): value is SandboxConfigError {
    return value instanceof Error && (value as { code?: unknown }).code === 'sandbox_config_invalid';
  }
}
