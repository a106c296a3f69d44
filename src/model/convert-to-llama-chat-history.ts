import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelResponse } from 'node-llama-cpp';
import { toolResultValue } from './tool-result-value.js';

/**
 * An AI SDK prompt → node-llama-cpp chat history. node-llama-cpp keeps a tool call and its result
 * inside the model's response, and the model's text after a result continues that same response,
 * so assistant → tool → assistant messages fold into one model item. The history always ends with
 * a model item: the one generation completes.
 */
export function convertToLlamaChatHistory(prompt: LanguageModelV3Prompt): { history: ChatHistoryItem[]; droppedFiles: number } {
  const history: ChatHistoryItem[] = [];
  const callsById = new Map<string, ChatModelFunctionCall>();
  let current: ChatModelResponse | undefined;
  let previousRole: string | undefined;
  let droppedFiles = 0;

  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        history.push({ type: 'system', text: message.content });
        current = undefined;
        break;
      case 'user': {
        const texts: string[] = [];
        for (const part of message.content) {
          if (part.type === 'text') texts.push(part.text);
          else droppedFiles++;
        }
        history.push({ type: 'user', text: texts.join('\n') });
        current = undefined;
        break;
      }
      case 'assistant': {
        if (!current || previousRole !== 'tool') {
          current = { type: 'model', response: [] };
          history.push(current);
        }
        for (const part of message.content) {
          if (part.type === 'text') {
            if (part.text) current.response.push(part.text);
          } else if (part.type === 'tool-call') {
            const call: ChatModelFunctionCall = { type: 'functionCall', name: part.toolName, params: part.input, result: null };
            callsById.set(part.toolCallId, call);
            current.response.push(call);
          } else if (part.type === 'tool-result') {
            const call = callsById.get(part.toolCallId);
            if (call) call.result = toolResultValue(part.output);
          } else if (part.type === 'file') {
            droppedFiles++;
          }
        }
        break;
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type !== 'tool-result') continue;
          const call = callsById.get(part.toolCallId);
          if (call) call.result = toolResultValue(part.output);
        }
        break;
    }
    previousRole = message.role;
  }
  if (history[history.length - 1]?.type !== 'model') history.push({ type: 'model', response: [] });
  return { history, droppedFiles };
}
