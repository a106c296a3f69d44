import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { DiscoveryHit } from '../../mcp/mcp-registry-types.js';
import type { ToolResult } from '../../contracts/tool.js';
import { strictToolArguments } from './strict-tool-arguments.js';

/** The part of the MCP registry (src/mcp) that `discover` and `call` use. */
export interface RegistryFace {
  discoverRelevant(intent: string, options?: { sessionId?: string; limit?: number }): Promise<DiscoveryHit[]>;
  tools: {
    execute(name: string, args: unknown, options?: { sessionId?: string; signal?: AbortSignal }): Promise<ToolResult>;
  };
}

/** `discover` (the registry's ranked search) and `call` (a registry tool by name), for `adapters.mcp.exposeRegistry`. */
export function registerRegistryTools(server: McpServer, source: RegistryFace | (() => Promise<RegistryFace>)): void {
  const registry = async () => (typeof source === 'function' ? source() : source);
  server.registerTool(
    'discover',
    {
      title: 'Discover tools, resources and prompts',
      description: "Searches the agent's MCP registry (every connected server) for the tools, resources and prompts most relevant to an intent.",
      inputSchema: strictToolArguments('discover', { intent: z.string().min(1), limit: z.number().int().positive().max(50).optional() }),
      annotations: { readOnlyHint: true },
    },
    async ({ intent, limit }) => {
      const hits = (await (await registry()).discoverRelevant(intent, { limit: limit ?? 10 })).map(describeHit);
      return { content: [{ type: 'text', text: JSON.stringify(hits, null, 2) }], structuredContent: { hits } };
    },
  );
  server.registerTool(
    'call',
    {
      title: 'Call a registry tool',
      description: 'Calls a tool of the MCP registry by its name (as `discover` returns it) with JSON arguments.',
      inputSchema: strictToolArguments('call', { name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).optional() }),
    },
    async ({ name, arguments: args }, ctx) => {
      const result = await (await registry()).tools.execute(name, args ?? {}, { signal: ctx.mcpReq.signal });
      return {
        content: result.content.map((part) => (part.type === 'text' ? { type: 'text' as const, text: part.text } : { type: 'image' as const, data: part.data, mimeType: part.mimeType })),
        ...(result.structured && typeof result.structured === 'object' ? { structuredContent: result.structured as Record<string, unknown> } : {}),
        ...(result.isError ? { isError: true } : {}),
      };
    },
  );
}

function describeHit(hit: DiscoveryHit) {
  const common = { kind: hit.kind, score: hit.score, ...(hit.serverId ? { serverId: hit.serverId } : {}) };
  switch (hit.kind) {
    case 'tool':
      return { ...common, name: hit.tool.name, description: hit.tool.description };
    case 'resource':
      return { ...common, name: hit.resource.name, uri: hit.resource.uri, description: hit.resource.description };
    case 'resource-template':
      return { ...common, name: hit.template.name, uriTemplate: hit.template.uriTemplate, description: hit.template.description };
    case 'prompt':
      return { ...common, name: hit.prompt.name, description: hit.prompt.description };
  }
}
