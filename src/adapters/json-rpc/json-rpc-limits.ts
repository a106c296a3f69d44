/** Bounds on one incoming JSON-RPC message, applied before it is parsed or dispatched. */
export interface JsonRpcLimits {
  /** Largest message in bytes (a stdio line, an HTTP body, a WebSocket frame). */
  maxMessageBytes: number;
  /** Deepest nesting of arrays and objects. */
  maxDepth: number;
}

/**
 * 32 MiB: the ACP SDK's own default, room for a ~24 MB image in base64, and a bound
 * on what one client can make the process hold. MCP's SDK stops at 10 MB; both faces
 * share this default so one setting explains both.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** Real messages nest under 20 levels; thousands overflow the SDKs' recursive validators. */
export const DEFAULT_MAX_JSON_DEPTH = 128;

export function jsonRpcLimits(overrides: Partial<JsonRpcLimits> = {}): JsonRpcLimits {
  return {
    maxMessageBytes: overrides.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    maxDepth: overrides.maxDepth ?? DEFAULT_MAX_JSON_DEPTH,
  };
}
