/**
 * The name a model sees for an MCP tool: `mcp__<server>__<tool>`, every character that is not an
 * ASCII letter or digit replaced by `_`, so it fits every provider's tool-name rules and policy
 * globs (`mcp__github__*`). The mapping is lossy (`a-b` and `a.b` collide); the registry keeps
 * the reverse lookup, and reports the collision rather than guessing.
 */
export function mcpToolName(serverId: string, toolName: string): string {
  return `mcp__${sanitize(serverId)}__${sanitize(toolName)}`;
}

/** The prefix every tool of one server shares, e.g. for a policy glob `mcp__github__*`. */
export function mcpToolPrefix(serverId: string): string {
  return `mcp__${sanitize(serverId)}__`;
}

function sanitize(value: string): string {
  return value.replace(/[^A-Za-z0-9]/g, '_');
}
