import type { Part } from '@a2a-js/sdk';
import type { ContentPart } from '../../contracts/agent-output.js';

/**
 * A peer's message parts as the agent's prompt: text as text, data parts as their JSON,
 * images (raw bytes) as images, other files as embedded resources, URLs as links.
 * Parts with no content are dropped; an empty result is the caller's error to report.
 */
export function toPrompt(parts: readonly Part[]): ContentPart[] {
  const prompt: ContentPart[] = [];
  for (const part of parts) {
    const content = part.content;
    if (!content) continue;
    switch (content.$case) {
      case 'text':
        if (content.value.length > 0) prompt.push({ type: 'text', text: content.value });
        break;
      case 'data':
        prompt.push({ type: 'text', text: JSON.stringify(content.value ?? null) });
        break;
      case 'raw': {
        const mimeType = part.mediaType || 'application/octet-stream';
        const data = Buffer.from(content.value).toString('base64');
        if (mimeType.startsWith('image/')) prompt.push({ type: 'image', data, mimeType });
        else prompt.push({ type: 'resource', uri: `file:///${encodeURIComponent(part.filename || 'attachment')}`, mimeType, blob: data });
        break;
      }
      case 'url':
        prompt.push({ type: 'resource_link', uri: content.value, name: part.filename || content.value, ...(part.mediaType ? { mimeType: part.mediaType } : {}) });
        break;
    }
  }
  return prompt;
}

/** The message's text, for answers to a question (`allow`, `reject`, …). */
export function plainText(parts: readonly Part[]): string {
  return parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join(' ')
    .trim();
}
