import type { ToolAnnotations } from '@modelcontextprotocol/client';
import type { ToolKind } from '../contracts/agent-output.js';
import type { ToolRisk } from '../contracts/tool.js';

/**
 * The risk of an MCP tool, from the server's annotations. Annotations are hints from the server
 * and untrusted (the MCP spec says so): they lower the risk only for a server the user's config
 * trusts (`trustAnnotations: true`); any other server's tools are `external` (they ask, in
 * accept-edits too, and plan mode does not offer them). For a trusted server:
 * - `readOnlyHint: true` → `read` (no side effects: offered without asking, in plan mode too);
 * - otherwise `openWorldHint: false` → `write` (changes only the local/closed environment);
 * - otherwise → `external` (the default of the spec: a tool may reach the outside world).
 * `destructiveHint` does not change the tier (write and external both ask permission) but shows
 * as the `delete` kind, so a client can warn louder.
 */
export function mcpToolRisk(annotations: ToolAnnotations | undefined, trusted: boolean): ToolRisk {
  if (!trusted) return 'external';
  if (annotations?.readOnlyHint === true) return 'read';
  if (annotations?.openWorldHint === false) return 'write';
  return 'external';
}

export function mcpToolKind(annotations: ToolAnnotations | undefined): ToolKind {
  if (annotations?.readOnlyHint === true) return 'read';
  if (annotations?.destructiveHint === true) return 'delete';
  if (annotations?.openWorldHint === false) return 'edit';
  return 'other';
}
