import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';

/** One scripted model reply. */
export interface MockStep {
  text?: string;
  reasoning?: string;
  toolCalls?: Array<{ id?: string; name: string; input: unknown }>;
  finishReason?: 'stop' | 'length' | 'tool-calls';
  /** Throw this error from the stream instead of answering. */
  error?: Error;
  /** Wait this long before each chunk (lets tests cancel mid-stream). */
  chunkDelayMs?: number;
}

/** An AI SDK mock model that replays steps in order and records every call's prompt. */
export function scriptedModel(steps: MockStep[]): MockLanguageModelV3 & { calls: LanguageModelV3CallOptions[] } {
  let index = 0;
  const calls: LanguageModelV3CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      calls.push(options);
      const step = steps[index++] ?? { text: '(script exhausted)' };
      return { stream: mockStepStream(step, index) };
    },
  });
  return Object.assign(model, { calls });
}

/** One scripted reply as a provider stream (shared with the routed mock model). */
export function mockStepStream(step: MockStep, stepIndex: number): ReadableStream<LanguageModelV3StreamPart> {
  const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if (step.error) {
    parts.push({ type: 'error', error: step.error });
  }
  if (step.reasoning) {
    parts.push({ type: 'reasoning-start', id: 'r' }, { type: 'reasoning-delta', id: 'r', delta: step.reasoning }, { type: 'reasoning-end', id: 'r' });
  }
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
