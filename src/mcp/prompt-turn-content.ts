import type { GetPromptResult } from '@modelcontextprotocol/client';
import type { ContentPart } from '../contracts/agent-output.js';

type PromptContent = GetPromptResult['messages'][number]['content'];

/**
 * An MCP prompt's messages as the one user message its turn starts with, after a line that says
 * where it came from. An assistant message stays part of that user message, marked as the
 * prompt's: a server's text never enters the history as something the agent said. The text comes
 * from the server (untrusted, as a tool result): it is the user's prompt in every other way.
 */
export function promptTurnContent(result: GetPromptResult, origin: { serverId: string; prompt: string; command: string }): ContentPart[] {
  // The names are the server's too: quoted as JSON, so a name cannot break out of the line.
  const parts: ContentPart[] = [{ type: 'text', text: `/${origin.command}: the prompt ${JSON.stringify(origin.prompt)} of the MCP server ${JSON.stringify(origin.serverId)} follows.` }];
  for (const message of result.messages) {
    const part = contentPart(message.content);
    if (message.role !== 'assistant') parts.push(part);
    else if (part.type === 'text') parts.push({ type: 'text', text: `Assistant (in the prompt): ${part.text}` });
    else parts.push({ type: 'text', text: 'Assistant (in the prompt):' }, part);
  }
  return parts;
}

function contentPart(content: PromptContent): ContentPart {
  switch (content.type) {
    case 'text':
      return { type: 'text', text: content.text };
    case 'image':
      return { type: 'image', data: content.data, mimeType: content.mimeType };
    case 'resource': {
      const { uri, mimeType } = content.resource;
      const body = 'text' in content.resource ? { text: content.resource.text } : { blob: content.resource.blob };
      return { type: 'resource', uri, ...(mimeType ? { mimeType } : {}), ...body };
    }
    case 'resource_link':
      return { type: 'resource_link', uri: content.uri, name: content.name, ...(content.mimeType ? { mimeType: content.mimeType } : {}), ...(content.description ? { description: content.description } : {}) };
    default:
      // Audio: no model the agent drives takes it from a user message.
      return { type: 'text', text: `[${content.type} (${'mimeType' in content ? content.mimeType : 'unknown type'}) left out: the agent passes no ${content.type} on]` };
  }
}
