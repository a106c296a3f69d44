import type { ModelMessage, UserContent } from 'ai';
import type { ContentPart } from '../contracts/agent-output.js';

/** User content parts → an AI SDK user message. Embedded resources become text the model can read. */
export function toUserMessage(parts: readonly ContentPart[]): ModelMessage {
  const content: Exclude<UserContent, string> = [];
  for (const part of parts) {
    switch (part.type) {
      case 'text':
        content.push({ type: 'text', text: part.text });
        break;
      case 'image':
        content.push({ type: 'image', image: part.data, mediaType: part.mimeType });
        break;
      case 'resource':
        if (part.text !== undefined) {
          content.push({ type: 'text', text: `<resource uri="${part.uri}">\n${part.text}\n</resource>` });
        } else if (part.blob !== undefined) {
          content.push({ type: 'file', data: part.blob, mediaType: part.mimeType ?? 'application/octet-stream' });
        }
        break;
      case 'resource_link':
        content.push({ type: 'text', text: `[${part.name}](${part.uri})` });
        break;
    }
  }
  return { role: 'user', content };
}

/** The plain text of a prompt: the turn's intent for discovery, and a session title. */
export function promptText(parts: readonly ContentPart[]): string {
  return parts
    .map((part) => (part.type === 'text' ? part.text : part.type === 'resource_link' ? part.name : ''))
    .filter(Boolean)
    .join('\n');
}
