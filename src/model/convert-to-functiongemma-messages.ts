import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { FunctionGemmaMessage, FunctionGemmaModelPart } from './functiongemma.js';
import { toolResultValue } from './tool-result-value.js';

/**
 * An AI SDK prompt → FunctionGemma messages. Tool results join the model turn that made the call
 * (FunctionGemma writes call, response and the follow-up answer in one model turn).
 */
export function convertToFunctionGemmaMessages(prompt: LanguageModelV3Prompt): FunctionGemmaMessage[] {
  const out: FunctionGemmaMessage[] = [];
  const names = new Map<string, string>();
  let model: Extract<FunctionGemmaMessage, { role: 'model' }> | undefined;
  let previousRole: string | undefined;
  const args = (input: unknown): Record<string, unknown> =>
    typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : { value: input };

  for (const message of prompt) {
    if (message.role === 'system') {
      out.push({ role: 'system', text: message.content });
      model = undefined;
    } else if (message.role === 'user') {
      const text = message.content.map((p) => (p.type === 'text' ? p.text : '')).filter(Boolean).join('\n');
      out.push({ role: 'user', text });
      model = undefined;
    } else if (message.role === 'assistant') {
      if (!model || previousRole !== 'tool') {
        model = { role: 'model', parts: [] };
        out.push(model);
      }
      for (const part of message.content) {
        if (part.type === 'text' && part.text) model.parts.push({ type: 'text', text: part.text });
        else if (part.type === 'tool-call') {
          names.set(part.toolCallId, part.toolName);
          model.parts.push({ type: 'call', name: part.toolName, arguments: args(part.input) });
        } else if (part.type === 'tool-result') {
          model.parts.push({ type: 'response', name: part.toolName, response: toolResultValue(part.output) });
        }
      }
    } else if (message.role === 'tool') {
      if (!model) {
        model = { role: 'model', parts: [] };
        out.push(model);
      }
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const response: FunctionGemmaModelPart = {
          type: 'response',
          name: names.get(part.toolCallId) ?? part.toolName,
          response: toolResultValue(part.output),
        };
        model.parts.push(response);
      }
    }
    previousRole = message.role;
  }
  return out;
}
