import { testChatModelPath, testEmbedModelPath } from '../../bench/test-models/test-model-files.js';

/**
 * The GGUF files tests need, from the repository itself: the committed tiny llama fixture, and
 * the GloVe embedder the vitest global setup generates into node_modules/.cache. The variable
 * named, when set, overrides the path. Missing means failing loudly, never skipping.
 */
export function requireTestModel(variable: 'PLAITED_TEST_CHAT_MODEL' | 'PLAITED_TEST_EMBED_MODEL'): string {
  return variable === 'PLAITED_TEST_CHAT_MODEL' ? testChatModelPath() : testEmbedModelPath();
}
