import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import type { AnyTool, ToolResult } from '../contracts/tool.js';
import { errorResult, textResult } from '../tools/tool-result.js';
import { ContextError } from './context-error.js';
import type { MemoryWiki } from './memory-wiki.js';

/**
 * The memory tools over one wiki: `memory_search`, `memory_get` and `wiki_lint` read; the other
 * `wiki_*` tools change files in the wiki folder and so carry write risk (they ask permission like
 * any other write unless the session's mode allows them).
 */
export function createMemoryTools(wiki: MemoryWiki): AnyTool[] {
  return [
    defineTool({
      name: 'memory_search',
      description: 'Search the project memory wiki (notes kept across sessions). Returns matching pages with a snippet and its line.',
      parameters: z.object({
        query: z.string().min(1).describe('What you want to recall, in plain words.'),
        limit: z.number().int().min(1).max(20).default(5),
      }),
      risk: 'read',
      source: 'memory',
      kind: 'search',
      title: (args) => `Search memory: ${args.query}`,
      execute: (args, context) =>
        guarded(async () => {
          const hits = await wiki.search(args.query, { limit: args.limit, signal: context.signal });
          if (hits.length === 0) return textResult(`No memory pages match "${args.query}".`);
          const text = hits
            .map((hit, rank) => `${rank + 1}. ${hit.path} — ${hit.title} (score ${hit.score.toFixed(3)})\n   line ${hit.line}: ${hit.snippet}`)
            .join('\n');
          return textResult(text, { structured: { hits } });
        }),
    }),
    defineTool({
      name: 'memory_get',
      description: 'Read lines of a memory wiki file by its path (relative to the wiki folder), e.g. after memory_search.',
      parameters: z.object({
        path: z.string().min(1),
        from: z.number().int().min(1).default(1).describe('First line, 1-based.'),
        lines: z.number().int().min(1).max(400).default(100),
      }),
      risk: 'read',
      source: 'memory',
      kind: 'read',
      title: (args) => `Read memory ${args.path}`,
      execute: (args) =>
        guarded(async () => {
          const window = await wiki.get(args.path, { from: args.from, lines: args.lines });
          const more = window.to < window.totalLines ? `\n[lines ${window.from}-${window.to} of ${window.totalLines}; continue with from=${window.to + 1}]` : '';
          return textResult(`${window.text}${more}`, { locations: [{ path: `${wiki.dir}/${window.path}`, line: window.from }] });
        }),
    }),
    defineTool({
      name: 'wiki_lint',
      description: 'Check the memory wiki: missing support files, broken [[links]], malformed or dangling relationship edges.',
      parameters: z.object({}),
      // It only reads: asking leave for it (and hiding it in plan mode) made checking memory cost a question.
      risk: 'read',
      source: 'memory',
      kind: 'read',
      title: () => 'Lint memory wiki',
      execute: () =>
        guarded(async () => {
          const issues = await wiki.lint();
          if (issues.length === 0) return textResult('The memory wiki has no problems.');
          const text = issues.map((issue) => `- ${issue.code}: ${issue.path}${issue.line ? `:${issue.line}` : ''} — ${issue.message}`).join('\n');
          return textResult(`${issues.length} problem${issues.length === 1 ? '' : 's'}:\n${text}`, { structured: { issues } });
        }),
    }),
    defineTool({
      name: 'wiki_update_index',
      description: 'Regenerate the memory wiki index.md from its pages (titles and first sentences).',
      parameters: z.object({}),
      risk: 'write',
      source: 'memory',
      kind: 'edit',
      title: () => 'Update memory index',
      execute: () =>
        guarded(async () => {
          const text = await wiki.writeIndex();
          return textResult(text, { locations: [{ path: `${wiki.dir}/index.md` }] });
        }),
    }),
    defineTool({
      name: 'wiki_append_log',
      description: 'Append a dated entry to the memory wiki log.md (what was learned or decided, and why).',
      parameters: z.object({ title: z.string().min(1), text: z.string().optional() }),
      risk: 'write',
      source: 'memory',
      kind: 'edit',
      title: (args) => `Log: ${args.title}`,
      execute: (args) =>
        guarded(async () => {
          const entry = await wiki.appendLog(args);
          return textResult(`Appended to log.md:${entry}`, { locations: [{ path: `${wiki.dir}/log.md` }] });
        }),
    }),
    defineTool({
      name: 'wiki_record_relationship',
      description: 'Record typed edges between memory pages (e.g. from "auth-service" to "user-db", type "depends_on"). Duplicates are ignored.',
      parameters: z.object({
        edges: z
          .array(z.object({ from: z.string().min(1), to: z.string().min(1), type: z.string().min(1), note: z.string().optional() }))
          .min(1),
      }),
      risk: 'write',
      source: 'memory',
      kind: 'edit',
      title: (args) => `Record ${args.edges.length} relationship${args.edges.length === 1 ? '' : 's'}`,
      execute: (args) =>
        guarded(async () => {
          const { added, duplicates } = await wiki.recordRelationships(args.edges);
          return textResult(`Recorded ${added.length} edge${added.length === 1 ? '' : 's'}${duplicates ? `; ${duplicates} already present` : ''}.`, {
            structured: { added, duplicates },
          });
        }),
    }),
  ];
}

/** Context errors (a path outside the wiki, a missing file) go back to the model as tool errors. */
async function guarded(run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await run();
  } catch (error) {
    if (ContextError.isInstance(error)) return errorResult(error.message);
    throw error;
  }
}
