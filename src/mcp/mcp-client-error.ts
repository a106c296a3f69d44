import { PlaitedError } from '../errors/plaited-error.js';

/** Why an MCP operation failed; a local code, never sent on the wire. */
export type McpClientErrorCode =
  /** The server could not be started or did not complete the handshake. */
  | 'connect_failed'
  /** The server rejected our credentials (HTTP 401/403), or OAuth needs a provider. */
  | 'auth_failed'
  /** The request got no answer within the server's `timeoutMs`. */
  | 'timeout'
  /** The caller aborted the request. */
  | 'aborted'
  /** The connection dropped while the request was open (the server crashed or exited). */
  | 'connection_closed'
  /** The server is not connected (failed, reconnecting past the wait, or removed). */
  | 'not_connected'
  /** The server answered with a JSON-RPC error. */
  | 'server_error'
  /** The server's answer did not match the protocol's shape. */
  | 'invalid_result'
  /** A list never stopped paginating. */
  | 'pagination_exceeded'
  /** No server, tool, resource or prompt by that name. */
  | 'not_found'
  /** A server with that id is already registered in that scope. */
  | 'duplicate_server'
  /** The session closed while its server was being prepared: nothing of it was started. */
  | 'session_closed'
  /** Arguments failed the tool's JSON Schema. */
  | 'invalid_arguments';

const MARKER = Symbol.for('plaited-agent.McpClientError');

/**
 * The one error type of src/mcp: every failure of a server (dead, hanging, slow, rude)
 * becomes one of these, so callers can turn it into a tool result instead of crashing.
 */
export class McpClientError extends PlaitedError<McpClientErrorCode> {
  /** The server's id, or '' when the failure is not tied to one server. */
  readonly serverId: string;
  /** A JSON-RPC error code, when the server sent one. */
  readonly rpcCode?: number;
  /** No retry can fix it (the config's command is not found, its URL is invalid): see `isRetryable`. */
  readonly permanent: boolean;
  readonly [MARKER] = true;

  constructor(options: { code: McpClientErrorCode; serverId: string; message: string; cause?: unknown; rpcCode?: number; permanent?: boolean }) {
    super(options.code, options.message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'McpClientError';
    this.serverId = options.serverId;
    this.rpcCode = options.rpcCode;
    this.permanent = options.permanent ?? false;
  }

  /** Worth retrying later: the server may come back. */
  get isRetryable(): boolean {
    if (this.permanent) return false;
    return this.code === 'timeout' || this.code === 'connection_closed' || this.code === 'not_connected' || this.code === 'connect_failed';
  }

  /** Survives duplicate copies of this module (the marker is a global symbol). */
  static override isInstance(value: unknown): value is McpClientError {
    return typeof value === 'object' && value !== null && (value as { [MARKER]?: boolean })[MARKER] === true;
  }
}
