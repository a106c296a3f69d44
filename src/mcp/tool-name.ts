import { createHash } from 'node:crypto';

/** Providers refuse longer tool names (OpenAI, Anthropic: `^[a-zA-Z0-9_-]{1,64}$`). */
export const MAX_TOOL_NAME_LENGTH = 64;
/** A server id longer than this (sanitized) is shortened in the prefix, so every tool keeps room for its own name. */
const MAX_SERVER_PART = 32;
const HASH_LENGTH = 10;

/**
 * The name a model sees for an MCP tool: `mcp__<server>__<tool>`, every character that is not an
 * ASCII letter or digit replaced by `_`, so it fits every provider's tool-name rules and policy
 * globs (`mcp__github__*`). The mapping is lossy (`a-b` and `a.b` collide); the registry keeps
 * the reverse lookup, and names the later of two colliding tools with `distinctMcpToolName`. A name longer than 64
 * characters is cut and ends in `_` plus a hash of the server's original names instead, so it
 * stays deterministic and distinct; the server is still called with the tool's own name.
 */
export function mcpToolName(serverId: string, toolName: string): string {
  const prefix = mcpToolPrefix(serverId);
  const tool = sanitize(toolName);
  if (prefix.length + tool.length <= MAX_TOOL_NAME_LENGTH) return prefix + tool;
  return distinctMcpToolName(serverId, toolName);
}

/**
 * The name of a tool whose plain name is taken by another of its server's (`a.b` beside `a_b`):
 * cut to fit, ending in `_` plus a hash of the server's original names, as a long name does.
 */
export function distinctMcpToolName(serverId: string, toolName: string): string {
  const prefix = mcpToolPrefix(serverId);
  const suffix = `_${hash(`${serverId}\0${toolName}`)}`;
  return prefix + sanitize(toolName).slice(0, MAX_TOOL_NAME_LENGTH - prefix.length - suffix.length) + suffix;
}

/** The prefix every tool of one server shares, e.g. for a policy glob `mcp__github__*`. */
export function mcpToolPrefix(serverId: string): string {
  const server = sanitize(serverId);
  if (server.length <= MAX_SERVER_PART) return `mcp__${server}__`;
  const suffix = `_${hash(serverId)}`;
  return `mcp__${server.slice(0, MAX_SERVER_PART - suffix.length)}${suffix}__`;
}

function sanitize(value: string): string {
  return value.replace(/[^A-Za-z0-9]/g, '_');
}

function hash(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, HASH_LENGTH);
}
