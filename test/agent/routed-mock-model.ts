import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import type { MockStep } from '../helpers/scripted-mock-model.js';

/** Everything a route can look at: the system prompt and the whole prompt as text. */
export interface RouteInput {
  system: string;
  text: string;
  options: LanguageModelV3CallOptions;
}

/**
 * A mock model whose reply is chosen from the request, not by arrival order: parallel
 * sub-agents and background summaries ask in an order a script cannot know.
 */
export function routedModel(route: (input: RouteInput) => MockStep): MockLanguageModelV3 & { calls: RouteInput[] } {
  const calls: RouteInput[] = [];
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      const system = options.prompt
        .filter((message) => message.role === 'system')
        .map((message) => message.content as string)
        .join('\n');
      const input = { system, text: JSON.stringify(options.prompt), options };
      calls.push(input);
      return { stream: toStream(route(input), calls.length) };
    },
  });
  return Object.assign(model, { calls });
}

function toStream(step: MockStep, stepIndex: number): ReadableStream<LanguageModelV3StreamPart> {
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (step.error) parts.push({ type: 'error', error: step.error });
  if (step.text) {
    parts.push({ type: 'text-start', id: 't' });
    for (const piece of step.text.match(/.{1,8}/gs) ?? []) parts.push({ type: 'text-delta', id: 't', delta: piece });
    parts.push({ type: 'text-end', id: 't' });
  }
  (step.toolCalls ?? []).forEach((call, i) => {
    parts.push({
      type: 'tool-call',
      toolCallId: call.id ?? `call_${stepIndex}_${i}`,
      toolName: call.name,
      input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
    });
  });
  const unified = step.finishReason ?? (step.toolCalls?.length ? 'tool-calls' : 'stop');
  parts.push({
    type: 'finish',
    finishReason: { unified, raw: unified },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 5, text: 5, reasoning: undefined },
    },
  });
  return simulateReadableStream({ chunks: parts, chunkDelayInMs: step.chunkDelayMs ?? null, initialDelayInMs: null });
}
