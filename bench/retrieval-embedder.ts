/**
 * Which embedder the retrieval evaluation and benchmarks use: `--embedder SPEC` (a GGUF
 * path or `hf:` URI), else PLAITED_TEST_EMBED_MODEL, else the config default. One thread:
 * on these 2-core machines it is the fastest for small embedding models. A one-entry memory
 * cache, so each mode's latency includes embedding its query (with `cacheDb`, a disk lookup).
 */
import { embedderSchema } from '../src/config/schema.js';
import { createEmbedder, type Embedder } from '../src/model/embedder.js';

export function resolveEvalEmbedder(options: { spec?: string; cacheDb?: string; threads?: number } = {}): Embedder {
  const spec = options.spec ?? process.env.PLAITED_TEST_EMBED_MODEL ?? embedderSchema.parse({}).model;
  return createEmbedder({ model: spec, threads: options.threads ?? 1, cacheDb: options.cacheDb, lruSize: 1 });
}
