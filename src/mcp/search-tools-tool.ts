import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import type { Tool } from '../contracts/tool.js';
import { textResult } from '../tools/tool-result.js';
import { formatToolSearch } from './format-tool-search.js';
import type { McpRegistry } from './mcp-registry.js';

export const SEARCH_TOOLS_NAME = 'search_tools';

const parameters = z.object({
  query: z.string().min(1).describe('What you want to do, in a few words (e.g. "create a GitHub issue").'),
  limit: z.number().int().min(1).max(20).optional().describe('How many tools to return (default 8).'),
});

export interface SearchToolsToolOptions {
  registry: McpRegistry;
  /** Default number of results. */
  limit?: number;
  /** Called with the names found, so they become callable in the same turn. */
  onFound?(sessionId: string, names: readonly string[]): void;
  /** The session whose servers a session's search sees (a sub-agent's: the session it works for); default itself. */
  scopeOf?(sessionId: string): string;
}

/**
 * `search_tools`: when a turn offers only the most relevant MCP tools, this lets the model look
 * for more. Found tools are reported through `onFound` (the MCP extension activates them), and
 * the agent loop asks for the tool list again before the next step, so they are callable at once.
 * Results are listed compactly (see format-tool-search.ts): one line per job with its server and
 * a one-line summary, near-duplicates from other servers grouped, and a weak match said so.
 */
export function createSearchToolsTool(options: SearchToolsToolOptions): Tool<z.output<typeof parameters>> {
  return defineTool({
    name: SEARCH_TOOLS_NAME,
    description:
      'Search the available MCP tools by what you want to do. The tools found become callable right away; ' +
      'call this when none of the tools you have fits the task.',
    parameters,
    risk: 'read',
    source: 'mcp',
    kind: 'search',
    title: (args) => `Search tools: ${args.query}`,
    async execute(args, context) {
      const limit = args.limit ?? options.limit ?? 8;
      const scope = { sessionId: options.scopeOf?.(context.sessionId) ?? context.sessionId };
      // Twice as deep as shown: grouped near-duplicates must not leave the list short of jobs.
      const matches = await options.registry.tools.search(args.query, { ...scope, limit: Math.min(2 * limit, 40) });
      if (matches.length === 0) return textResult(`No tools match "${args.query}".`);
      const view = formatToolSearch(
        args.query,
        matches.map((match) => match.tool),
        { allTools: options.registry.tools.list(scope), limit },
      );
      options.onFound?.(context.sessionId, view.names);
      return textResult(view.text);
    },
  });
}
