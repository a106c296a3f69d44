import { relative, resolve } from 'node:path';
import type { AgentExtension, ToolCallSummary, TurnContext } from '../agent/agent-extension.js';
import type { SearchIndex } from '../retrieval/search-index.js';
import type { AnyTool } from '../contracts/tool.js';
import type { MemoryConfig } from './context-config.js';
import { createMemoryTools } from './memory-tools.js';
import { MemoryWiki } from './memory-wiki.js';

/**
 * Memory in the agent: one wiki per project folder (`memory.dir` under the session cwd),
 * its tools offered every step, and the search index marked stale whenever any tool
 * touched a file inside the wiki (pages the model edits with write_file are searchable next).
 */
export interface MemoryExtension extends AgentExtension {
  wiki(cwd: string): MemoryWiki;
}

export function createMemoryExtension(options: { config: MemoryConfig; index?: SearchIndex }): MemoryExtension {
  const wikis = new Map<string, { wiki: MemoryWiki; tools: AnyTool[] }>();
  const entry = (cwd: string) => {
    let found = wikis.get(cwd);
    if (!found) {
      const wiki = new MemoryWiki({ dir: resolve(cwd, options.config.dir), index: options.index });
      found = { wiki, tools: createMemoryTools(wiki) };
      wikis.set(cwd, found);
    }
    return found;
  };
  return {
    name: 'memory',
    wiki: (cwd) => entry(cwd).wiki,
    tools: (context: TurnContext) => entry(context.cwd).tools,
    // Without this the model had memory_search and memory_get, and no idea where a page is written.
    systemPrompt: (context: TurnContext) => memoryPrompt(relative(context.cwd, entry(context.cwd).wiki.dir) || '.'),
    onToolResult(context: TurnContext, call: ToolCallSummary) {
      const { wiki } = entry(context.cwd);
      const touched = [...call.locations, ...(call.result.locations ?? [])].some((location) => wiki.contains(resolve(context.cwd, location.path)));
      if (touched) wiki.markStale();
    },
  };
}

/** What the model is told about memory each turn: where pages live, when to look, when to write. */
function memoryPrompt(folder: string): string {
  return [
    `Project memory (kept across sessions): markdown pages in ${folder}/, one topic a page, a "# Title" first line, other pages linked as [[page-name]].`,
    '- Before work that may have been done or decided before, search it with memory_search (memory_get reads a page).',
    `- When you learn something worth keeping (a decision and why, a convention, how to build, test or deploy), write or update a page in ${folder}/ with write_file or edit_file; record decisions with wiki_append_log.`,
    '- To forget, delete or edit the page. Never store secrets (keys, tokens, passwords) in memory.',
  ].join('\n');
}
