import type { ModelMessage } from 'ai';
import { isBase64 } from './validate-content-parts.js';
import { unansweredCallResults } from './unanswered-call-results.js';

/** The result a repaired history gives a stored call that has none. */
export const MISSING_RESULT_TEXT = 'No result was recorded for this call (the turn failed before it ran); it did not run.';

/**
 * Model history read back from a store, made sendable again: attachments no provider can
 * decode (an image whose data is not base64, saved before prompts were validated) become a
 * short note, and a tool call stored without a result (by a release that stored the calls
 * of a failed reply) gets an error result right after its tool messages. Either used to
 * fail every later turn of its session. Everything else is returned as is.
 */
export function repairStoredMessages(messages: ModelMessage[]): ModelMessage[] {
  return answerDanglingCalls(messages.map(repairAttachments));
}

function repairAttachments(message: ModelMessage): ModelMessage {
  if ((message.role !== 'user' && message.role !== 'assistant') || typeof message.content === 'string') return message;
  let changed = false;
  const content = message.content.map((part) => {
    const data = part.type === 'image' ? part.image : part.type === 'file' ? part.data : undefined;
    if (typeof data !== 'string' || isUsableData(data)) return part;
    changed = true;
    return { type: 'text' as const, text: `[${part.type === 'image' ? 'an image' : 'a file'} was removed from this message: its data was not valid base64]` };
  });
  return changed ? ({ ...message, content } as ModelMessage) : message;
}

/** Inserts an error result for each call no tool message after its assistant message answers. */
function answerDanglingCalls(messages: ModelMessage[]): ModelMessage[] {
  const repaired: ModelMessage[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    repaired.push(message);
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    const answered = new Set<string>();
    while (messages[index + 1]?.role === 'tool') {
      const tool = messages[++index]!;
      repaired.push(tool);
      if (Array.isArray(tool.content)) for (const part of tool.content) if (part.type === 'tool-result') answered.add(part.toolCallId);
    }
    const missing = unansweredCallResults(message, MISSING_RESULT_TEXT, answered);
    if (missing) repaired.push(missing);
  }
  return repaired;
}

/** Base64, or a URL the provider fetches itself (`https:`, `data:`). */
function isUsableData(data: string): boolean {
  if (/^(?:https?|data):/i.test(data)) return true;
  return data.length > 0 && isBase64(data);
}
