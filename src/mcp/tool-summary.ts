import { splitIdentifier } from '../retrieval/split-identifier.js';

/** What a one-line summary is built from: the fields every tool has. */
export interface SummarySource {
  /** The tool's own name (on its server). */
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
}

const MAX_CHARS = 110;

/**
 * One line that says what a tool does, for `search_tools` results: the description's first
 * sentence, whitespace collapsed and cut at a word boundary (a long description costs the model
 * tokens on every search and says no more about which tool fits). A tool without a description
 * (or whose "description" is only its own name, as `createMcpTool` falls back to) gets one from
 * its title or name and its argument names: "get figma data (fileKey, nodeId)".
 */
export function toolSummary(tool: SummarySource, maxChars = MAX_CHARS): string {
  const description = (tool.description ?? '').replace(/\s+/g, ' ').trim();
  if (description === '' || description === tool.name || description === tool.title) return fromName(tool, maxChars);
  return clip(firstSentence(stripMarkup(description)), maxChars);
}

function firstSentence(text: string): string {
  // A sentence ends at . ! ? before a capital letter or a line's end, or at a CJK full stop;
  // "e.g. a file" and "v1.2" do not end one.
  const match = /^(.+?(?:[.!?](?=\s+[\p{Lu}\p{Lo}"'(])|[。！？]))/u.exec(text);
  return (match ? match[1] : text).replace(/[.:;,\s]+$/u, '');
}

function stripMarkup(text: string): string {
  return text.replace(/^#+\s*/, '').replace(/\*\*|__|`/g, '');
}

function fromName(tool: SummarySource, maxChars: number): string {
  const label = tool.title?.trim() || splitIdentifier(tool.name).toLowerCase().replace(/\s+/g, ' ').trim();
  const args = argumentNames(tool.inputSchema);
  return clip(args.length > 0 ? `${label} (${args.join(', ')})` : label, maxChars);
}

function argumentNames(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const properties = (schema as { properties?: unknown }).properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties).slice(0, 5) : [];
}

function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > maxChars * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}
