import { PlaitedError } from '../errors/plaited-error.js';

/**
 * A failure of a local (node-llama-cpp) model: its file, its download, loading it, or running it.
 * The message always says which path or URI was involved and what to do about it.
 */
export class LocalModelError extends PlaitedError<
    | 'model_file_not_found'
    /** The model cache folder cannot be listed (a file in its place, no permission). */
    | 'model_cache_unreadable'
    | 'model_download_failed'
    | 'model_load_failed'
    | 'model_closed'
    | 'generation_failed'
    /** The prompt does not fit the model's context: compact the history or raise `agent.contextSize`. */
    | 'context_exceeded'
    | 'embedding_failed'
    /** node-llama-cpp (an optional peer dependency) is not installed. */
    | 'local_runtime_missing'
> {
  /** The path or URI the failure is about. */
  readonly model: string;

  constructor(code: LocalModelError['code'], model: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'LocalModelError';
    this.model = model;
  }

  static override isInstance(error: unknown): error is LocalModelError {
    return error instanceof Error && error.name === 'LocalModelError' && 'code' in error && 'model' in error;
  }
}
