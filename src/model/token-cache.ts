import type { LlamaModel, LlamaText, Token } from 'node-llama-cpp';

/**
 * The last few prompts a model tokenized, by their exact text: the agent measures a step's prompt
 * just before sending it, and tokenizing a few thousand tokens costs tens of milliseconds on a busy
 * CPU, so the second tokenization of the same prompt is served from here.
 */
const SIZE = 8;
const caches = new WeakMap<LlamaModel, Map<string, Token[]>>();

export function tokenizeCached(model: LlamaModel, text: LlamaText): Token[] {
  let cache = caches.get(model);
  if (!cache) caches.set(model, (cache = new Map()));
  const key = JSON.stringify(text.toJSON());
  const hit = cache.get(key);
  if (hit) {
    // Most recently used last.
    cache.delete(key);
    cache.set(key, hit);
    return hit.slice();
  }
  const tokens = text.tokenize(model.tokenizer);
  cache.set(key, tokens.slice());
  if (cache.size > SIZE) cache.delete(cache.keys().next().value!);
  return tokens;
}
