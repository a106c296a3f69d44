/**
 * A small stand-in embedder for benchmarks and the retrieval evaluation, used until
 * src/model/embedder.ts (createEmbedder) lands: node-llama-cpp on the CPU with one thread,
 * texts capped below the model's 512-token context, camelCase split first (the shared
 * GloVe model reads `getWeather` as "get"), and an optional SQLite vector cache so repeated
 * evaluations do not re-embed thousands of queries.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { getLlama } from 'node-llama-cpp';
import type { EmbeddingModel } from '../src/model/embedding-model.js';
import { splitIdentifier } from '../src/retrieval/split-identifier.js';

export interface BenchEmbedderOptions {
  modelPath: string;
  threads?: number;
  /** SQLite file for cached vectors; none → no cache. */
  cacheDb?: string;
}

const MAX_TOKENS = 500;

export async function createBenchEmbedder(options: BenchEmbedderOptions): Promise<EmbeddingModel & { calls: number }> {
  const llama = await getLlama({ gpu: false });
  const model = await llama.loadModel({ modelPath: options.modelPath });
  const context = await model.createEmbeddingContext({ threads: options.threads ?? 1 });
  const modelId = `file:${options.modelPath}`;
  const cache = options.cacheDb ? new Database(options.cacheDb) : undefined;
  cache?.pragma('journal_mode = WAL');
  cache?.exec('CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)');
  const getCached = cache?.prepare<[string], { vector: Buffer }>('SELECT vector FROM vectors WHERE key = ?');
  const putCached = cache?.prepare('INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)');
  let dims: number | undefined;

  async function embedOne(text: string): Promise<Float32Array> {
    const prepared = splitIdentifier(text).replace(/\s+/g, ' ').trim();
    const key = createHash('sha1').update(`${modelId}\n${prepared}`).digest('hex');
    const hit = getCached?.get(key);
    if (hit) return new Float32Array(new Uint8Array(hit.vector).buffer);
    let tokens = model.tokenize(prepared);
    if (tokens.length > MAX_TOKENS) tokens = tokens.slice(0, MAX_TOKENS);
    const vector = tokens.length === 0 ? new Float32Array(dims ?? 0) : Float32Array.from((await context.getEmbeddingFor(tokens)).vector);
    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm);
    if (norm > 0 && Number.isFinite(norm)) for (let i = 0; i < vector.length; i++) vector[i] /= norm;
    else vector.fill(0);
    if (vector.length > 0) putCached?.run(key, Buffer.from(vector.buffer));
    return vector;
  }

  const embedder = {
    modelId,
    calls: 0,
    async dimensions(): Promise<number> {
      dims ??= (await context.getEmbeddingFor('dimension probe')).vector.length;
      return dims;
    },
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      embedder.calls++;
      await embedder.dimensions();
      const vectors: Float32Array[] = [];
      for (const text of texts) vectors.push(await embedOne(text));
      return vectors;
    },
    async close(): Promise<void> {
      cache?.close();
      await context.dispose();
      await model.dispose();
    },
  };
  return embedder;
}
