/** An `initialize` request for ACP protocol version 2 or later (v1 clients send 1). */
export function asksForAcpV2(message: unknown): boolean {
  const { method, params } = (message ?? {}) as { method?: unknown; params?: { protocolVersion?: unknown } };
  return method === 'initialize' && typeof params?.protocolVersion === 'number' && params.protocolVersion >= 2;
}
