import { z } from 'zod';
import type { Tool } from '../contracts/tool.js';
import { defineTool } from '../tools/define-tool.js';
import { textResult } from '../tools/tool-result.js';
import type { McpRegistry } from './mcp-registry.js';
import type { ListedResource, ListedResourceTemplate } from './mcp-registry-types.js';

export const LIST_RESOURCES_NAME = 'list_resources';
/** Lines listed at most; a query ranks them (the hybrid index), without one the first are shown. */
const MAX_LISTED = 50;

const parameters = z.object({
  query: z.string().optional().describe('What you are looking for, in a few words; leave out to list them all.'),
  server: z.string().optional().describe('Only this MCP server\'s resources (its id).'),
});

/**
 * `list_resources`: the resources and URI templates of the session's MCP servers, one line each
 * (URI, server, name, description, type), ranked by the hybrid index when a query is given. What
 * it lists, `read_resource` reads.
 */
export function createListResourcesTool(registry: McpRegistry, scopeOf: (sessionId: string) => string = (sessionId) => sessionId): Tool<z.output<typeof parameters>> {
  return defineTool({
    name: LIST_RESOURCES_NAME,
    description:
      'List the resources (documents, files, records) the connected MCP servers offer, and their URI templates; ' +
      'read one with read_resource. Give a query to rank them by what you need.',
    parameters,
    risk: 'read',
    source: 'mcp',
    kind: 'search',
    title: (args) => (args.query ? `List resources: ${args.query}` : 'List resources'),
    async execute(args, context) {
      // A sub-agent's session reads the resources of the session it works for.
      const scope = { sessionId: scopeOf(context.sessionId) };
      const inServer = (serverId: string | undefined) => args.server === undefined || serverId === args.server;
      let resources: ListedResource[];
      let templates: ListedResourceTemplate[];
      if (args.query?.trim()) {
        const hits = await registry.resources.search(args.query, { ...scope, limit: MAX_LISTED });
        resources = hits.flatMap((hit) => (hit.kind === 'resource' ? [hit.resource] : []));
        templates = hits.flatMap((hit) => (hit.kind === 'resource-template' ? [hit.template] : []));
      } else {
        resources = registry.resources.list(scope);
        templates = registry.resources.templates(scope);
      }
      const lines = [
        ...resources.filter((resource) => inServer(resource.serverId)).map(resourceLine),
        ...templates.filter((template) => inServer(template.serverId)).map(templateLine),
      ];
      const where = args.server === undefined ? '' : ` on server "${args.server}"`;
      if (lines.length === 0) return textResult(args.query ? `No resources${where} match "${args.query}".` : `No resources are offered${where}.`);
      const more = lines.length > MAX_LISTED ? `\n(${lines.length - MAX_LISTED} more: give a query or a server to narrow the list)` : '';
      return textResult(lines.slice(0, MAX_LISTED).join('\n') + more);
    },
  });
}

function resourceLine(resource: ListedResource): string {
  return `- ${resource.uri} (${resource.serverId ?? 'local'}) ${describe(resource.title ?? resource.name, resource.description, resource.mimeType)}`;
}

function templateLine(template: ListedResourceTemplate): string {
  return `- template ${template.uriTemplate} (${template.serverId ?? 'local'}) ${describe(template.title ?? template.name, template.description, template.mimeType)}`;
}

function describe(name: string, description: string | undefined, mimeType: string | undefined): string {
  const label = name.slice(0, 120);
  const text = description ? `${label}: ${description.replace(/\s+/g, ' ').slice(0, 200)}` : label;
  return mimeType ? `${text} [${mimeType}]` : text;
}
