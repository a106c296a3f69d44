import type { ToolResult } from '../contracts/tool.js';

/**
 * A tool's result within `maxChars` of text (`agent.maxToolResultChars`): the text parts past it
 * are cut, with a note saying how much and what to do. Built-in tools bound their own output far
 * below it; this bounds a tool that does not (a library's `defineTool` returning 20 MB), which
 * would otherwise ride in every later request of the session. Other parts (images) pass.
 */
export function capToolResult(result: ToolResult, maxChars: number | undefined): ToolResult {
  if (maxChars === undefined) return result;
  const total = result.content.reduce((sum, part) => sum + (part.type === 'text' ? part.text.length : 0), 0);
  if (total <= maxChars) return result;
  let room = maxChars;
  const content = result.content.map((part) => {
    if (part.type !== 'text') return part;
    const kept = part.text.slice(0, Math.max(0, room));
    room -= kept.length;
    return { ...part, text: kept };
  });
  const note = `[The tool's output was cut at ${maxChars} of its ${total} characters (agent.maxToolResultChars); ask it for less: a narrower query, a range, a page.]`;
  return { ...result, content: [...content.filter((part) => part.type !== 'text' || part.text !== ''), { type: 'text', text: note }] };
}
