import type { ContentBlock, ReadResourceResult } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { Tool } from '../contracts/tool.js';
import { defineTool } from '../tools/define-tool.js';
import { errorResult } from '../tools/tool-result.js';
import { errorMessage } from '../errors/error-message.js';
import { mapCallToolResult } from './map-call-tool-result.js';
import type { McpRegistry } from './mcp-registry.js';

export const READ_RESOURCE_NAME = 'read_resource';

const parameters = z.object({
  uri: z.string().min(1).describe('The resource URI, as list_resources or a tool answer gave it (e.g. "file:///notes/a.md").'),
});

/**
 * `read_resource`: reads one resource of the session's MCP servers (listed, or matching one of
 * their URI templates), the way a tool answer's resource link is opened. Text comes back as text
 * (capped like a tool answer, by the server's `maxResultChars`), images as images, other binary
 * content as a line naming its type and size.
 */
export function createReadResourceTool(registry: McpRegistry, scopeOf: (sessionId: string) => string = (sessionId) => sessionId): Tool<z.output<typeof parameters>> {
  return defineTool({
    name: READ_RESOURCE_NAME,
    description:
      "Read a resource of the connected MCP servers by its URI: one listed by list_resources, one matching a server's URI template, " +
      'or a resource link a tool answered with.',
    parameters,
    risk: 'read',
    source: 'mcp',
    kind: 'read',
    title: (args) => `Read resource ${args.uri}`,
    async execute(args, context) {
      // A sub-agent's session reads the resources of the session it works for.
      const scope = { sessionId: scopeOf(context.sessionId) };
      let read: ReadResourceResult;
      try {
        read = await registry.resources.read(args.uri, { ...scope, signal: context.signal });
      } catch (error) {
        return errorResult(`Could not read ${args.uri}: ${errorMessage(error)}. list_resources shows the resources and URI templates offered.`);
      }
      const listed = registry.resources.list(scope).find((resource) => resource.uri === args.uri);
      const maxChars = listed?.serverId ? registry.servers.get(listed.serverId, scope)?.config.maxResultChars : undefined;
      const blocks = read.contents.map(contentBlock);
      if (blocks.length === 0) return { content: [{ type: 'text', text: `${args.uri} is empty.` }] };
      return mapCallToolResult({ content: blocks }, { maxChars });
    },
  });
}

function contentBlock(content: ReadResourceResult['contents'][number]): ContentBlock {
  if ('blob' in content && typeof content.blob === 'string' && /^image\/(png|jpeg|gif|webp)$/.test(content.mimeType ?? '')) {
    return { type: 'image', data: content.blob, mimeType: content.mimeType ?? 'image/png' };
  }
  return { type: 'resource', resource: content };
}
