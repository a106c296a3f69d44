import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from 'ai';

/**
 * Error results for the tool calls of `assistant` that have none yet (ids in `answered` do):
 * a history with a call and no result is refused by every provider ("tool result is
 * missing"), so a call that never ran still gets a result saying why. `undefined` when
 * every call is answered (or there are none).
 */
export function unansweredCallResults(
  assistant: ModelMessage,
  why: string,
  answered: ReadonlySet<string> = new Set(),
): ToolModelMessage | undefined {
  if (assistant.role !== 'assistant' || typeof assistant.content === 'string') return undefined;
  const content: ToolModelMessage['content'] = [];
  for (const part of assistant.content as Exclude<AssistantModelMessage['content'], string>) {
    if (part.type !== 'tool-call' || part.providerExecuted || answered.has(part.toolCallId)) continue;
    content.push({ type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: { type: 'error-text', value: why } });
  }
  return content.length > 0 ? { role: 'tool', content } : undefined;
}
