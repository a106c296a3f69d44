import type { Prompt, Resource, ResourceTemplateType } from '@modelcontextprotocol/client';
import { McpClientError } from './mcp-client-error.js';
import type { McpClientOptions, McpToolDefinition } from './mcp-client-options.js';

export type McpListMethod = 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list';

/** One page of a list verb, as the client reads it. */
export type ListResult<M extends McpListMethod> = M extends 'tools/list'
  ? { tools: McpToolDefinition[]; nextCursor?: string }
  : M extends 'resources/list'
    ? { resources: Resource[]; nextCursor?: string }
    : M extends 'resources/templates/list'
      ? { resourceTemplates: ResourceTemplateType[]; nextCursor?: string }
      : { prompts: Prompt[]; nextCursor?: string };

/**
 * Follows `nextCursor` until a list verb is complete. A cursor that repeats ends the list
 * (it would loop forever); more than `maxPages` pages is a `pagination_exceeded` error.
 */
export async function listAllPages<M extends McpListMethod, Item>(options: {
  serverId: string;
  method: M;
  maxPages: number;
  fetchPage: (params: { cursor?: string }) => Promise<ListResult<M>>;
  pick: (result: ListResult<M>) => Item[];
  onPaginate?: McpClientOptions['onPaginate'];
}): Promise<Item[]> {
  const { serverId, method, maxPages } = options;
  const items: Item[] = [];
  let cursor: string | undefined;
  for (let page = 1; ; page += 1) {
    const result = await options.fetchPage(cursor === undefined ? {} : { cursor });
    const pageItems = options.pick(result);
    items.push(...pageItems);
    const next = result.nextCursor;
    options.onPaginate?.({ serverId, method, page, items: pageItems.length, nextCursor: next });
    if (next === undefined || next === cursor) return items;
    if (page >= maxPages) {
      throw new McpClientError({ code: 'pagination_exceeded', serverId, message: `server "${serverId}": ${method} still had more pages after ${maxPages}` });
    }
    cursor = next;
  }
}
