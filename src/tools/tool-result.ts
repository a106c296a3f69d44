import type { ToolResult } from '../contracts/tool.js';

/** A successful text result (see the tool contract, src/contracts/tool.ts). */
export function textResult(text: string, extra: Omit<ToolResult, 'content'> = {}): ToolResult {
  return { content: [{ type: 'text', text }], ...extra };
}

export function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
