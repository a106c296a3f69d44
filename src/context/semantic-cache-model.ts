import type { LanguageModelV3, LanguageModelV3Prompt, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { SemanticCache, SemanticCacheKey } from './semantic-cache.js';
import { instantTextStream } from '../model/instant-stream.js';
import { canMeasurePrompt, type PromptBudgetCall } from '../model/prompt-budget.js';

/**
 * Puts the semantic cache in front of a model: the first step of a turn (the prompt ends
 * with the user's message) is answered from the cache when a near-identical prompt was
 * answered before with the same tools and the same context; otherwise the model answers
 * and a plain-text answer (no tool calls) is stored. Later steps of a turn always go to the model.
 */
export function withSemanticCache(model: LanguageModelV3, cache: SemanticCache): LanguageModelV3 {
  // Stores run off the hot path; a lookup waits for them so an answer just given is found.
  let storing: Promise<unknown> = Promise.resolve();
  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (options) => model.doGenerate(options),
    // A local model's prompt measure stays visible: the agent checks each step against its context.
    ...(canMeasurePrompt(model) ? { measurePrompt: (call: PromptBudgetCall) => model.measurePrompt(call) } : {}),
    async doStream(options) {
      const key = cacheKey(options.prompt, options.tools?.map((tool) => tool.name) ?? []);
      if (!key) return model.doStream(options);
      await storing;
      const hit = await cache.lookup(key, { signal: options.abortSignal }).catch(() => undefined);
      if (hit) return { stream: instantTextStream(hit.entry.answer, { raw: 'cached' }) };
      const result = await model.doStream(options);
      let text = '';
      let calledTools = false;
      const recorder = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          if (part.type === 'text-delta') text += part.delta;
          if (part.type === 'tool-call') calledTools = true;
          if (part.type === 'finish' && part.finishReason.unified === 'stop' && !calledTools && text.trim()) {
            // A failed store only means no cache entry.
            storing = cache.store(key, text).catch(() => undefined);
          }
          controller.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(recorder) };
    },
  };
}

/** The key of a turn's first step, or undefined for later steps (the prompt ends with tool results). */
function cacheKey(prompt: LanguageModelV3Prompt, tools: string[]): SemanticCacheKey | undefined {
  const last = prompt[prompt.length - 1];
  if (!last || last.role !== 'user') return undefined;
  const text = last.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n').trim();
  if (!text) return undefined;
  return { prompt: text, tools, context: JSON.stringify(prompt.slice(0, -1)) };
}
