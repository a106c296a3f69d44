/**
 * Which embedder the retrieval evaluation and benchmarks use: `--embedder SPEC` (a GGUF
 * path), else PLAITED_TEST_EMBED_MODEL, else the config default.
 */
import { embedderSchema } from '../src/config/schema.js';
import type { EmbeddingModel } from '../src/model/embedding-model.js';
import { createBenchEmbedder } from './llama-embedder.js';

export async function resolveEvalEmbedder(options: { spec?: string; cacheDb?: string; threads?: number }): Promise<EmbeddingModel> {
  const spec = options.spec ?? process.env.PLAITED_TEST_EMBED_MODEL ?? embedderSchema.parse({}).model;
  const modelPath = spec.startsWith('file:') ? spec.slice('file:'.length) : spec;
  return createBenchEmbedder({ modelPath, threads: options.threads ?? 1, cacheDb: options.cacheDb });
}
