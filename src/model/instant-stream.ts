import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';

/** A provider stream that yields `parts` at once (an answer known before anything is asked). */
export function instantStream(parts: readonly LanguageModelV3StreamPart[]): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/** A whole plain-text answer as a provider stream, finished with `stop`. */
export function instantTextStream(text: string, options: { raw?: string; tokens?: number } = {}): ReadableStream<LanguageModelV3StreamPart> {
  const tokens = options.tokens ?? 0;
  return instantStream([
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: text },
    { type: 'text-end', id: 't' },
    {
      type: 'finish',
      finishReason: { unified: 'stop', raw: options.raw ?? 'stop' },
      usage: {
        inputTokens: { total: tokens, noCache: tokens, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: tokens, text: tokens, reasoning: undefined },
      },
    },
  ]);
}
