export type McpAdapterErrorCode = 'sampling_failed' | 'sampling_unavailable' | 'http_listen_failed' | 'registry_unavailable';

/** A failure of the MCP server adapter (local: never sent as is; tools report errors as results). */
export class McpAdapterError extends Error {
  constructor(
    readonly code: McpAdapterErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'McpAdapterError';
  }
}
