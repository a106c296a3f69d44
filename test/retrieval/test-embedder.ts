import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder, type Embedder } from '../../src/model/embedder.js';
import type { EmbeddingModel } from '../../src/model/embedding-model.js';
import { requireTestModel } from '../model/test-models.js';

/** The shared GloVe test embedder; fails loudly when the model is not configured. */
export function createTestEmbedder(options: { cache?: boolean } = {}): Embedder {
  return createEmbedder({
    model: requireTestModel('PLAITED_TEST_EMBED_MODEL'),
    threads: 1,
    cacheDb: options.cache ? join(tmpdir(), 'plaited-retrieval-test-embeddings.db') : undefined,
  });
}

/** An embedder that records every text it is asked to embed, to prove what sync skips. */
export interface CountingEmbedder extends EmbeddingModel {
  calls: number;
  texts: string[];
}

export function countingEmbedder(inner: EmbeddingModel): CountingEmbedder {
  const counting: CountingEmbedder = {
    modelId: inner.modelId,
    calls: 0,
    texts: [],
    dimensions: () => inner.dimensions(),
    embed(texts, options) {
      counting.calls++;
      counting.texts.push(...texts);
      return inner.embed(texts, options);
    },
  };
  return counting;
}
