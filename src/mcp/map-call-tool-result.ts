import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/client';
import type { ToolResult, ToolResultPart } from '../contracts/tool.js';
import { essenceOf, MODEL_IMAGE_TYPES, sniffImageType } from '../agent/image-format.js';
import { cutResultText } from '../tools/cut-result-text.js';

/** The text of one answer the model gets by default (~25,000 tokens, as Claude Code caps MCP output). */
export const DEFAULT_MAX_RESULT_CHARS = 100_000;

export interface MapCallToolResultOptions {
  /** Text past this many characters (all parts together) is cut, saying so; default {@link DEFAULT_MAX_RESULT_CHARS}. */
  maxChars?: number;
}

/**
 * An MCP `tools/call` result as the model sees it: text and images pass through; resource links,
 * embedded resources and audio become text that names them (models cannot open a URI by
 * themselves: `read_resource` reads it); `structuredContent` is kept for
 * adapters and, when the server sent no text, shown as JSON; `isError` passes through. Text past
 * `maxChars` is cut with a note naming the size and the limit: a server's 5 MB answer would
 * otherwise fill the model's context on every later step of the session.
 */
export function mapCallToolResult(result: CallToolResult, options: MapCallToolResultOptions = {}): ToolResult {
  const maxChars = options.maxChars ?? DEFAULT_MAX_RESULT_CHARS;
  const content: ToolResultPart[] = result.content.map(mapBlock);
  const structuredText = result.structuredContent === undefined ? undefined : JSON.stringify(result.structuredContent);
  if (structuredText !== undefined && !content.some((part) => part.type === 'text')) content.push({ type: 'text', text: structuredText });
  if (content.length === 0) content.push({ type: 'text', text: result.isError ? 'The tool failed without a message.' : '(no output)' });
  const capped = cutResultText(
    content,
    maxChars,
    (total) =>
      `\n[… ${total - maxChars} more characters cut: the answer had ${total} characters, over the limit of ${maxChars} ` +
      '(mcp.servers[].maxResultChars). Ask the tool for less: a narrower query, a page, a filter.]',
  );
  // Structured content as large as that is not handed on either (it becomes the client's raw output).
  const keepStructured = structuredText !== undefined && structuredText.length <= maxChars;
  return {
    content: capped,
    ...(result.isError ? { isError: true } : {}),
    ...(keepStructured ? { structured: result.structuredContent } : {}),
  };
}

function mapBlock(block: ContentBlock): ToolResultPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return modelImage(block.data, block.mimeType);
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

/**
 * An image as models take it: png, jpeg, gif or webp, by its first bytes (a mislabelled one gets
 * its real type). Anything else (an SVG chart, text labelled image/png) is a line saying it was
 * left out: providers refuse the whole request over it, and it would stay in the session's history.
 */
function modelImage(data: string, mimeType: string): ToolResultPart {
  const actual = sniffImageType(data);
  if (actual) return { type: 'image', data, mimeType: actual };
  return {
    type: 'text',
    text: `[image ${essenceOf(mimeType)}, ${Math.round((data.length * 3) / 4)} bytes, left out: models take only ${MODEL_IMAGE_TYPES.join(', ')}]`,
  };
}
