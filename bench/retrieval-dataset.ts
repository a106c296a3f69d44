/**
 * The shared tool-retrieval datasets (bench/data/eval/README.md): tools.jsonl and
 * queries.jsonl, and the index documents built from tools the way the MCP registry builds
 * them (name, description, arguments from inputSchema, group = the server).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexDocument } from '../src/retrieval/search-index.js';
import { flattenSchemaArgs } from '../src/retrieval/flatten-schema-args.js';

export interface EvalTool {
  id: string;
  name: string;
  description: string;
  server: string | null;
  inputSchema: Record<string, unknown> | null;
}

export interface EvalQuery {
  id: string;
  query: string;
  gold: string[];
  /** Any-of groups: the query is satisfied by one tool of each group. */
  goldGroups?: string[][];
}

export interface EvalDataset {
  name: string;
  tools: EvalTool[];
  queries: EvalQuery[];
}

export function loadDataset(dir: string): EvalDataset {
  const tools = readJsonl<EvalTool>(join(dir, 'tools.jsonl'));
  const queries = readJsonl<EvalQuery>(join(dir, 'queries.jsonl'));
  return { name: dir.split('/').filter(Boolean).pop() ?? dir, tools, queries };
}

/** The gold groups of a query: `goldGroups`, or each gold id alone. */
export function goldGroupsOf(query: EvalQuery): string[][] {
  return query.goldGroups && query.goldGroups.length > 0 ? query.goldGroups : query.gold.map((id) => [id]);
}

/**
 * A tool as an index document. Without a server, each tool is its own namespace: there is
 * no group information, so group boosting must not invent any.
 */
export function toolDocument(tool: EvalTool): IndexDocument {
  return {
    id: tool.id,
    kind: 'tool',
    namespace: tool.server ?? `tool:${tool.id}`,
    fields: {
      name: tool.name,
      description: tool.description,
      args: tool.inputSchema ? flattenSchemaArgs(tool.inputSchema) : undefined,
      group: tool.server ?? undefined,
    },
  };
}

function readJsonl<T>(path: string): T[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new Error(`cannot read ${path}: the dataset folder needs tools.jsonl and queries.jsonl`, { cause });
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as T;
      } catch (cause) {
        throw new Error(`${path}:${index + 1}: not JSON`, { cause });
      }
    });
}
