import { yieldToLoop } from './yield-to-loop.js';
import type { EmbeddingModel } from '../model/embedding-model.js';
import { RetrievalError } from './retrieval-error.js';

/** Embeds texts in batches of `batchSize`, so one huge catalog is not one huge call. */
export async function embedAll(
  embedder: EmbeddingModel,
  texts: readonly string[],
  options: { batchSize: number; signal?: AbortSignal },
): Promise<Float32Array[]> {
  const vectors: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += options.batchSize) {
    // The event loop turns between batches: thousands of texts never hold up other requests.
    if (start > 0) await yieldToLoop();
    if (options.signal?.aborted) {
      throw new RetrievalError('ABORTED', 'embedding was aborted', { cause: options.signal.reason });
    }
    const batch = texts.slice(start, start + options.batchSize);
    let result: Float32Array[];
    try {
      result = await embedder.embed(batch, { signal: options.signal });
    } catch (cause) {
      if (RetrievalError.isInstance(cause)) throw cause;
      throw new RetrievalError('EMBEDDING_FAILED', `the embedder ${embedder.modelId} failed on ${batch.length} texts`, {
        context: { modelId: embedder.modelId, first: batch[0]?.slice(0, 80) },
        cause,
      });
    }
    if (result.length !== batch.length) {
      throw new RetrievalError('EMBEDDING_FAILED', `the embedder returned ${result.length} vectors for ${batch.length} texts`, {
        context: { modelId: embedder.modelId },
      });
    }
    vectors.push(...result);
  }
  return vectors;
}
