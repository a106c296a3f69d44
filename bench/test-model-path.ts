import { GLOVE_GGUF_FILE } from './test-models/build-glove-gguf.js';
import { ensureTestEmbedder, testChatModelPath } from './test-models/test-model-files.js';

/**
 * A model file for a benchmark: the path in `variable`, else the repository's own copy (the
 * committed tiny llama fixture, or the GloVe embedder, built on first use). `neededBy` names
 * the benchmark in the error.
 */
export function testModelPath(variable: string, file: string, neededBy: string): string {
  try {
    if (variable === 'PLAITED_TEST_EMBED_MODEL' || file === GLOVE_GGUF_FILE) {
      return ensureTestEmbedder((line) => process.stderr.write(`${line}\n`));
    }
    return testChatModelPath();
  } catch (cause) {
    throw new Error(`${neededBy}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
