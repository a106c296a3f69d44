import type { Part } from '@a2a-js/sdk';
import type { ContentPart } from '../../contracts/agent-output.js';
import { validateContentParts } from '../../agent/validate-content-parts.js';

/** Media types whose bytes are text: such a file reaches the model as text, under its name. */
const TEXT_MEDIA = /^text\/|^application\/(?:json|xml|yaml|x-yaml|toml|javascript|typescript|x-sh|sql|graphql|x-ndjson|ld\+json)\b|\+(?:json|xml)$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A peer's message parts as the agent's prompt: text as text, data parts as their JSON,
 * images (raw bytes) as images, text files as text resources named after the file (the model
 * reads `<resource uri="file:///notes.md">…`, as with an ACP client's embedded file), other
 * files as embedded resources, URLs as links.
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
        const uri = `file:///${encodeURIComponent(part.filename || 'attachment')}`;
        const text = TEXT_MEDIA.test(mimeType) ? decodedText(content.value) : undefined;
        if (text !== undefined) prompt.push({ type: 'resource', uri, mimeType, text });
        else if (mimeType.startsWith('image/')) prompt.push({ type: 'image', data: Buffer.from(content.value).toString('base64'), mimeType });
        else prompt.push({ type: 'resource', uri, mimeType, blob: Buffer.from(content.value).toString('base64') });
        break;
      }
      case 'url':
        prompt.push({ type: 'resource_link', uri: content.value, name: part.filename || content.value, ...(part.mediaType ? { mimeType: part.mediaType } : {}) });
        break;
    }
  }
  return prompt;
}

/**
 * The first part the agent would refuse (an image whose bytes are not the format it claims), named
 * by its place in the peer's message (`message.parts[2]`), not in the prompt made of it.
 */
export function refusedPart(parts: readonly Part[]): string | undefined {
  for (const [index, part] of parts.entries()) {
    const problem = validateContentParts(toPrompt([part]), 'part');
    if (problem) return `message.parts[${index}]${problem.path.replace(/^part\[0\]/, '')} ${problem.reason}: nothing of the message was kept; send it again without it, or as a file of another media type.`;
  }
  return undefined;
}

/** The bytes as UTF-8 text, or `undefined` when they are not (a mislabelled binary stays a file). */
function decodedText(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The message's text, for answers to a question (`allow`, `reject`, …). */
export function plainText(parts: readonly Part[]): string {
  return parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join(' ')
    .trim();
}
