import { PlaitedError } from '../../errors/plaited-error.js';

export type McpAdapterErrorCode = 'sampling_failed' | 'sampling_unavailable' | 'http_listen_failed' | 'registry_unavailable';

/** A failure of the MCP server adapter (local: never sent as is; tools report errors as results). */
export class McpAdapterError extends PlaitedError<McpAdapterErrorCode> {
  constructor(code: McpAdapterErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'McpAdapterError';
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is McpAdapterError {
    return PlaitedError.isInstance(error) && error.name === 'McpAdapterError';
  }
}
