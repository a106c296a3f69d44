import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';
import type { ToolResult, ToolResultPart } from '../contracts/tool.js';

/**
 * An MCP `tools/call` result as the model sees it: text and images pass through; resource links,
 * embedded resources and audio become text that names them (models cannot open a URI by
 * themselves, but can call `read_resource`-style tools with it); `structuredContent` is kept for
 * adapters and, when the server sent no text, shown as JSON; `isError` passes through.
 */
export function mapCallToolResult(result: CallToolResult): ToolResult {
  const content: ToolResultPart[] = result.content.map(mapBlock);
  if (result.structuredContent !== undefined && !content.some((part) => part.type === 'text')) {
    content.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  }
  if (content.length === 0) content.push({ type: 'text', text: result.isError ? 'The tool failed without a message.' : '(no output)' });
  return {
    content,
    ...(result.isError ? { isError: true } : {}),
    ...(result.structuredContent !== undefined ? { structured: result.structuredContent } : {}),
  };
}

function mapBlock(block: ContentBlock): ToolResultPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', data: block.data, mimeType: block.mimeType };
    case 'audio':
      return { type: 'text', text: `[audio ${block.mimeType}, ${Math.round((block.data.length * 3) / 4)} bytes]` };
    case 'resource_link': {
      const details = [block.mimeType, block.description].filter(Boolean).join(', ');
      return { type: 'text', text: `Resource link: ${block.name} <${block.uri}>${details ? ` (${details})` : ''}` };
    }
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource && typeof resource.text === 'string') {
        return { type: 'text', text: `Resource <${resource.uri}>:\n${resource.text}` };
      }
      const size = 'blob' in resource && typeof resource.blob === 'string' ? Math.round((resource.blob.length * 3) / 4) : 0;
      return { type: 'text', text: `[binary resource <${resource.uri}>${resource.mimeType ? ` ${resource.mimeType}` : ''}, ${size} bytes]` };
    }
    default:
      return { type: 'text', text: `[unsupported content: ${(block as { type: string }).type}]` };
  }
}
