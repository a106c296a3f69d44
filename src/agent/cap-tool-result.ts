import type { ToolResult } from '../contracts/tool.js';
import { cutResultText } from '../tools/cut-result-text.js';

/**
 * A tool's result within `maxChars` of text (`agent.maxToolResultChars`): the text parts past it
 * are cut, with a note saying how much and what to do. Built-in tools bound their own output far
 * below it; this bounds a tool that does not (a library's `defineTool` returning 20 MB), which
 * would otherwise ride in every later request of the session. Other parts (images) pass.
 */
export function capToolResult(result: ToolResult, maxChars: number | undefined): ToolResult {
  if (maxChars === undefined) return result;
  const note = (total: number) =>
    `[The tool's output was cut at ${maxChars} of its ${total} characters (agent.maxToolResultChars); ask it for less: a narrower query, a range, a page.]`;
  const content = cutResultText(result.content, maxChars, note);
  return content === result.content ? result : { ...result, content };
}
