/** An `adapters.sandbox` setting that cannot be applied (a malformed size, say). */
export class SandboxConfigError extends Error {
  readonly code = 'sandbox_config_invalid';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SandboxConfigError';
  }

  static isInstance(value: unknown): value is SandboxConfigError {
    return value instanceof Error && (value as { code?: unknown }).code === 'sandbox_config_invalid';
  }
}
