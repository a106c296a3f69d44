import type { CallToolResult } from '@modelcontextprotocol/client';
import type { JsonSchema, Tool, ToolContext, ToolOrigin } from '../contracts/tool.js';
import { errorResult } from '../tools/tool-result.js';
import type { JsonSchemaValidator } from './json-schema-validator.js';
import { mapCallToolResult } from './map-call-tool-result.js';
import type { McpToolDefinition } from './mcp-client.js';
import { mcpToolKind, mcpToolRisk } from './mcp-tool-risk.js';
import { errorMessage } from '../errors/error-message.js';

export type McpToolArgs = Record<string, unknown>;

/**
 * What a server's words may take of every request's tool list: a description (sent to the model
 * with every step) and a title or name (shown to the user in permission questions). Servers are
 * untrusted; a 100 kB description would be a prompt injection paid for on every turn.
 */
export const MAX_DESCRIPTION_LENGTH = 2_000;
export const MAX_LABEL_LENGTH = 120;

/** An MCP tool as the agent sees it, plus where it came from (for the reverse name lookup). */
export interface McpTool extends Tool<McpToolArgs> {
  source: 'mcp';
  /** The server's id. */
  serverId: string;
  /** The tool's own name on its server. */
  mcpName: string;
  /** The human title the server gave it, if any. */
  mcpTitle?: string;
}

export interface CreateMcpToolOptions {
  /** The normalized name (`mcp__server__tool`). */
  name: string;
  serverId: string;
  /** The server's identity, for permission rules (mcp-server-origin.ts). */
  origin?: ToolOrigin;
  definition: McpToolDefinition;
  validator: JsonSchemaValidator;
  /** The user's config trusts this server's annotations (`trustAnnotations`): `readOnlyHint` makes the tool `read`. */
  trustAnnotations?: boolean;
  /** The server's `maxResultChars`: text of an answer past it is cut (see map-call-tool-result.ts). */
  maxResultChars?: number;
  /** `context` is the running tool call's: server requests during the call (elicitation) use its `emit`. */
  call(args: McpToolArgs, options: { signal: AbortSignal; context: ToolContext }): Promise<CallToolResult>;
}

/**
 * Wraps one MCP tool as a `Tool`: arguments are checked against its JSON Schema (ajv) before the
 * call, results are mapped to `ToolResult`, and every failure (timeout, crash, protocol error)
 * comes back as an `isError` result the model can read, never as a throw.
 */
export function createMcpTool(options: CreateMcpToolOptions): McpTool {
  const { definition, serverId, validator } = options;
  const inputSchema = definition.inputSchema as JsonSchema;
  const label = capped(definition.title ?? definition.annotations?.title ?? definition.name, MAX_LABEL_LENGTH);
  return {
    name: options.name,
    description: definition.description === undefined ? label : capped(definition.description, MAX_DESCRIPTION_LENGTH),
    inputSchema,
    risk: mcpToolRisk(definition.annotations, options.trustAnnotations === true),
    kind: mcpToolKind(definition.annotations),
    source: 'mcp',
    serverId,
    ...(options.origin ? { origin: options.origin } : {}),
    mcpName: definition.name,
    mcpTitle: optionalCapped(definition.title ?? definition.annotations?.title, MAX_LABEL_LENGTH),
    validate(args) {
      const result = validator.validate(inputSchema, args);
      if (result.ok) return result;
      return { ok: false, error: `Invalid arguments for ${options.name}:\n${result.error}` };
    },
    title: () => `${label} (${serverId})`,
    async execute(args, context) {
      try {
        return mapCallToolResult(await options.call(args, { signal: context.signal, context }), { maxChars: options.maxResultChars });
      } catch (error) {
        return errorResult(`MCP tool ${capped(definition.name, MAX_LABEL_LENGTH)} failed: ${errorMessage(error)}`);
      }
    },
  };
}

/** `text` cut to `max` characters, saying so and how much was left out. */
export function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = ` … [${text.length - max} more characters cut]`;
  return text.slice(0, Math.max(0, max - note.length)) + note;
}

function optionalCapped(text: string | undefined, max: number): string | undefined {
  return text === undefined ? undefined : capped(text, max);
}
