/** The MCP transports the MCP extension connects a client's servers over (stdio always). */
export const MCP_CAPABILITIES = { mcp: { http: true, sse: true } } as const;
