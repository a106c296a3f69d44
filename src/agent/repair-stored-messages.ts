import type { ModelMessage } from 'ai';
import { isBase64 } from './validate-content-parts.js';

/**
 * Model history read back from a store, with attachments no provider can decode (an image
 * whose data is not base64, saved before prompts were validated) replaced by a short note:
 * such a part failed every later turn of its session ("Invalid character"). Everything
 * else is returned as is.
 */
export function repairStoredMessages(messages: ModelMessage[]): ModelMessage[] {
  return messages.map((message) => {
    if ((message.role !== 'user' && message.role !== 'assistant') || typeof message.content === 'string') return message;
    let changed = false;
    const content = message.content.map((part) => {
      const data = part.type === 'image' ? part.image : part.type === 'file' ? part.data : undefined;
      if (typeof data !== 'string' || isUsableData(data)) return part;
      changed = true;
      return { type: 'text' as const, text: `[${part.type === 'image' ? 'an image' : 'a file'} was removed from this message: its data was not valid base64]` };
    });
    return changed ? ({ ...message, content } as ModelMessage) : message;
  });
}

/** Base64, or a URL the provider fetches itself (`https:`, `data:`). */
function isUsableData(data: string): boolean {
  if (/^(?:https?|data):/i.test(data)) return true;
  return data.length > 0 && isBase64(data);
}
