import type { ToolResultPart } from 'ai';
import type { ToolResult } from '../contracts/tool.js';

/** A tool result as the model receives it. */
export function toModelOutput(result: ToolResult): ToolResultPart['output'] {
  const hasMedia = result.content.some((part) => part.type === 'image');
  if (!hasMedia) {
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    return result.isError ? { type: 'error-text', value: text } : { type: 'text', value: text };
  }
  return {
    type: 'content',
    value: result.content.map((part) =>
      part.type === 'text'
        ? { type: 'text' as const, text: part.text }
        : { type: 'media' as const, data: part.data, mediaType: part.mimeType },
    ),
  };
}
