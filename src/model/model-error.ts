import { PlaitedError, type PlaitedErrorOptions } from '../errors/plaited-error.js';

/** A model that cannot be resolved or reached. Reported on the prompt, never a crash. */
export class ModelError extends PlaitedError<'model_not_configured' | 'model_spec_invalid' | 'model_unavailable' | 'model_call_failed' | 'model_call_timeout'> {
  constructor(code: ModelError['code'], message: string, options?: PlaitedErrorOptions) {
    super(code, message, options);
    this.name = 'ModelError';
  }

  static override isInstance(error: unknown): error is ModelError {
    return error instanceof Error && error.name === 'ModelError' && 'code' in error;
  }
}
