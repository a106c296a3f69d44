import type { ToolResultPart } from '../contracts/tool.js';

/**
 * A tool result's parts with their text cut to `maxChars` in all, then `note(total)` as a last
 * text part: the one cut of an MCP server's answer (`mcp.servers[].maxResultChars`) and of any
 * tool's result (`agent.maxToolResultChars`). Other parts (images) pass; `parts` itself when it fits.
 */
export function cutResultText(parts: ToolResultPart[], maxChars: number, note: (total: number) => string): ToolResultPart[] {
  const total = parts.reduce((sum, part) => sum + (part.type === 'text' ? part.text.length : 0), 0);
  if (total <= maxChars) return parts;
  let left = maxChars;
  const kept: ToolResultPart[] = [];
  for (const part of parts) {
    if (part.type !== 'text') kept.push(part);
    else if (left > 0) {
      kept.push({ ...part, text: part.text.slice(0, left) });
      left -= Math.min(left, part.text.length);
    }
  }
  kept.push({ type: 'text', text: note(total) });
  return kept;
}
