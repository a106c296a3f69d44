import { flattenSchemaArgs } from '../retrieval/flatten-schema-args.js';
import type { AnyTool } from '../contracts/tool.js';
import { commonNameWords, groupNearDuplicates } from './group-near-duplicates.js';
import { matchStrength } from './match-strength.js';
import { toolSummary } from './tool-summary.js';

/**
 * Below this match strength (share of the query's content words the best tools cover, see
 * match-strength.ts) the results say that nothing matched well. Calibrated on the real MCP
 * catalog's dev per-step queries against the same queries with every server of their gold
 * tools removed (bench/calibrate-weak-match.ts, best balanced accuracy on dev; numbers in
 * bench/RETRIEVAL.md). In effect: every content word of a short query must be covered.
 */
export const WEAK_MATCH = 0.8;

/** Alternatives listed under one result: the rest are still callable, just not listed. */
const MAX_ALTERNATIVES = 3;

export interface FormatToolSearchOptions {
  /** Every tool of the scope, to tell a server's own name words (`browser_`) from a tool's job. */
  allTools: readonly AnyTool[];
  /** How many results (near-duplicate groups) to list. */
  limit: number;
}

export interface ToolSearchView {
  text: string;
  /** Every tool listed, in the order shown (alternatives after their result). */
  names: string[];
  /** The best match strength among the listed results. */
  strength: number;
}

interface McpFields {
  serverId?: string;
  mcpName?: string;
  mcpTitle?: string;
}

/**
 * What `search_tools` shows the model: one numbered line per job (tool name, server, one-line
 * summary), near-duplicates from other servers on an "also" line under it, and a first line
 * that says when nothing matched well, so the model neither trusts a far-fetched tool nor
 * searches again with the same words.
 */
export function formatToolSearch(query: string, tools: readonly AnyTool[], options: FormatToolSearchOptions): ToolSearchView {
  const namesByServer = new Map<string, string[]>();
  for (const tool of options.allTools) {
    const { serverId, mcpName } = tool as McpFields;
    if (serverId && mcpName) namesByServer.set(serverId, [...(namesByServer.get(serverId) ?? []), mcpName]);
  }
  const serverWords = new Map<string, Set<string>>();
  const wordsOf = (serverId: string) => {
    let words = serverWords.get(serverId);
    if (!words) serverWords.set(serverId, (words = commonNameWords(serverId, namesByServer.get(serverId) ?? [])));
    return words;
  };
  const groups = groupNearDuplicates(
    tools,
    (tool) => ({ toolName: ownName(tool), serverId: (tool as McpFields).serverId, description: tool.description }),
    wordsOf,
  ).slice(0, options.limit);

  const strength = Math.max(0, ...groups.map((group) => matchStrength(query, matchText(group.first))));
  const names: string[] = [];
  const lines = groups.map((group, index) => {
    names.push(group.first.name, ...group.alternatives.slice(0, MAX_ALTERNATIVES).map((tool) => tool.name));
    const line = `${index + 1}. ${group.first.name}${serverLabel(group.first)}: ${summaryOf(group.first)}`;
    if (group.alternatives.length === 0) return line;
    const shown = group.alternatives.slice(0, MAX_ALTERNATIVES).map((tool) => `${tool.name}${serverLabel(tool)}`);
    return `${line}\n   same job: ${shown.join(', ')}`;
  });
  const head =
    strength < WEAK_MATCH
      ? `Nothing matched "${query}" well; the closest tools (callable now, check they fit; or search with other words):`
      : `Tools for "${query}" (callable now):`;
  return { text: [head, ...lines].join('\n'), names, strength };
}

function ownName(tool: AnyTool): string {
  return (tool as McpFields).mcpName ?? tool.name;
}

function serverLabel(tool: AnyTool): string {
  const { serverId } = tool as McpFields;
  return serverId ? ` [${serverId}]` : '';
}

function summaryOf(tool: AnyTool): string {
  const { mcpName, mcpTitle } = tool as McpFields;
  return toolSummary({ name: mcpName ?? tool.name, title: mcpTitle, description: tool.description, inputSchema: tool.inputSchema });
}

/** The text a tool is matched against: its names, description, arguments and server. */
export function matchText(tool: AnyTool): string {
  const { serverId, mcpName, mcpTitle } = tool as McpFields;
  return [mcpName ?? tool.name, mcpTitle, tool.description, flattenSchemaArgs(tool.inputSchema), serverId].filter(Boolean).join(' ');
}
