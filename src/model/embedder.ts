import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { LlamaEmbeddingContext, LlamaModel } from 'node-llama-cpp';
import type { EmbeddingModel } from './embedding-model.js';
import { EmbeddingStore } from './embedding-store.js';
import { LocalModelError } from './local-model-error.js';
import { isRemoteModelSpec, resolveModelFile, type DownloadProgress } from './model-files.js';
import { prepareEmbeddingText } from './prepare-embedding-text.js';
import { LRUCache } from 'lru-cache';
import { acquireSharedModel, defaultThreads } from './shared-llama.js';

export interface EmbedderOptions {
  /** GGUF path or `hf:` URI. */
  model: string;
  /** Default: the machine's core count. One thread was fastest for small models on 2-core machines. */
  threads?: number;
  /** Texts per model call (default 64). */
  batchSize?: number;
  /** SQLite file for the persistent vector cache; omit for memory only. */
  cacheDb?: string;
  /** Entries in the in-memory LRU (default 10,000). */
  lruSize?: number;
  /** Where `hf:` models are cached (default: see model-files.ts). */
  cacheDir?: string;
  onDownloadProgress?: (progress: DownloadProgress) => void;
}

export interface EmbedderStats {
  /** Batches sent to the model. */
  modelCalls: number;
  /** Texts the model actually embedded. */
  textsEmbedded: number;
  /** Texts answered from memory (including ones still being computed for another caller). */
  lruHits: number;
  /** Texts answered from the SQLite cache. */
  diskHits: number;
}

export interface Embedder extends EmbeddingModel {
  stats(): EmbedderStats;
  close(): Promise<void>;
}

interface Loaded {
  model: LlamaModel;
  context: LlamaEmbeddingContext;
  /** Word pieces a text may have: the model throws (not truncates) near its context size. */
  maxTokens: number;
  dimensions: number;
  release: () => Promise<void>;
}

/** Room for the special tokens the tokenizer adds ([CLS], [SEP], BOS/EOS) plus a margin. */
const SPECIAL_TOKEN_MARGIN = 16;

/**
 * The project's one embedder: a GGUF embedding model through node-llama-cpp, loaded on the first
 * embed call (so a cold CLI start never loads node-llama-cpp). Every text is prepared (camelCase
 * split), cut to the model's context, embedded, and L2-normalised; a text with no signal (empty,
 * only stop words) is an all-zero vector, never NaN. Vectors are cached in memory (this embedder's
 * LRU, keyed by the sha256 of the prepared text; concurrent callers share one computation, failures
 * are evicted) and, with `cacheDb`, in SQLite under model id + that hash.
 */
export function createEmbedder(options: EmbedderOptions): Embedder {
  const modelId = isRemoteModelSpec(options.model) ? options.model : resolve(options.model);
  const batchSize = Math.max(1, options.batchSize ?? 64);
  // Promises, not vectors: a second caller for a text awaits the first computation.
  const lru = new LRUCache<string, Promise<Float32Array>>({ max: Math.max(1, options.lruSize ?? 10_000) });
  const counters: EmbedderStats = { modelCalls: 0, textsEmbedded: 0, lruHits: 0, diskHits: 0 };
  let store: EmbeddingStore | undefined;
  let loading: Promise<Loaded> | undefined;
  let closed = false;
  // One batch at a time: the embedding context evaluates one sequence anyway, and a queue keeps
  // batches from interleaving their texts.
  let queue: Promise<unknown> = Promise.resolve();

  const getStore = () => {
    if (options.cacheDb && !store) store = new EmbeddingStore(options.cacheDb);
    return store;
  };

  const load = (): Promise<Loaded> => {
    if (closed) return Promise.reject(new LocalModelError('model_closed', modelId, `The embedder for ${modelId} is closed.`));
    loading ??= loadEmbeddingModel(options, modelId);
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };

  const computeBatch = (items: ReadonlyArray<{ hash: string; text: string }>): Promise<Map<string, Float32Array>> => {
    const run = async () => {
      const loaded = await load();
      const out = await embedItems(loaded, items, batchSize, counters, modelId);
      getStore()?.putMany(
        modelId,
        [...out].map(([hash, vector]) => ({ hash, vector })),
      );
      return out;
    };
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  };

  const embed = async (texts: readonly string[], embedOptions?: { signal?: AbortSignal }): Promise<Float32Array[]> => {
    const signal = embedOptions?.signal;
    signal?.throwIfAborted();
    if (closed) throw new LocalModelError('model_closed', modelId, `The embedder for ${modelId} is closed.`);
    const prepared = texts.map((text) => {
      const clean = prepareEmbeddingText(text);
      return { text: clean, hash: sha256(clean) };
    });
    const { pending, misses } = lookUpCached(prepared, lru, (hashes) => getStore()?.getMany(modelId, hashes), counters);
    if (misses.size > 0) {
      const batch = computeBatch([...misses].map(([hash, text]) => ({ hash, text })));
      for (const hash of misses.keys()) {
        const promise = batch.then((vectors) => vectors.get(hash)!);
        lru.set(hash, promise);
        // Errors are never cached; a newer computation for the hash may have replaced this one.
        promise.catch(() => void (lru.peek(hash) === promise && lru.delete(hash)));
        pending.set(hash, promise);
      }
    }
    const all = Promise.all(prepared.map(({ hash }) => pending.get(hash)!));
    return signal ? raceAbort(all, signal) : all;
  };

  return {
    modelId,
    async dimensions() {
      return (await load()).dimensions;
    },
    embed,
    stats: () => ({ ...counters }),
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      lru.clear();
      store?.close();
      const current = loading;
      loading = undefined;
      const loaded = await current?.catch(() => undefined);
      if (loaded) {
        await loaded.context.dispose();
        await loaded.release();
      }
    },
  };
}

/** Resolve and load the GGUF model and create its embedding context (released again when that fails). */
async function loadEmbeddingModel(options: EmbedderOptions, modelId: string): Promise<Loaded> {
  const path = await resolveModelFile(options.model, { cacheDir: options.cacheDir, onProgress: options.onDownloadProgress });
  const { model, release } = await acquireSharedModel(path);
  try {
    const contextSize = Math.min(model.trainContextSize || 512, 8192);
    const context = await model.createEmbeddingContext({
      contextSize,
      batchSize: contextSize,
      threads: options.threads ?? defaultThreads(),
    });
    return {
      model,
      context,
      maxTokens: Math.max(1, contextSize - SPECIAL_TOKEN_MARGIN),
      dimensions: model.embeddingVectorSize,
      release,
    };
  } catch (cause) {
    await release();
    throw new LocalModelError('model_load_failed', modelId, `Could not create an embedding context for ${modelId}: ${String(cause)}`, {
      cause,
    });
  }
}

/** The texts in chunks of `batchSize` (one model call each), keyed by hash; any failure fails the whole batch. */
async function embedItems(
  loaded: Loaded,
  items: ReadonlyArray<{ hash: string; text: string }>,
  batchSize: number,
  counters: EmbedderStats,
  modelId: string,
): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  for (let i = 0; i < items.length; i += batchSize) {
    const chunk = items.slice(i, i + batchSize);
    counters.modelCalls++;
    for (const item of chunk) {
      try {
        out.set(item.hash, await embedOne(loaded, item.text));
      } catch (cause) {
        throw new LocalModelError('embedding_failed', modelId, `Embedding failed with ${modelId}: ${String(cause)}`, { cause });
      }
      counters.textsEmbedded++;
    }
  }
  return out;
}

async function embedOne(loaded: Loaded, text: string): Promise<Float32Array> {
  if (text.length === 0) return new Float32Array(loaded.dimensions);
  // Embedding the tokens (cut to the context) saves tokenizing the text a second time.
  const tokens = loaded.model.tokenize(text);
  const { vector } = await loaded.context.getEmbeddingFor(tokens.length > loaded.maxTokens ? tokens.slice(0, loaded.maxTokens) : tokens);
  return normalise(vector, loaded.dimensions);
}

/**
 * Each distinct prepared text from memory (the LRU) or, failing that, from the SQLite cache (the
 * found vectors enter the LRU); what neither holds is left in `misses` (hash → text).
 */
function lookUpCached(
  prepared: ReadonlyArray<{ text: string; hash: string }>,
  lru: LRUCache<string, Promise<Float32Array>>,
  fromDisk: (hashes: string[]) => Map<string, Float32Array> | undefined,
  counters: EmbedderStats,
): { pending: Map<string, Promise<Float32Array>>; misses: Map<string, string> } {
  const pending = new Map<string, Promise<Float32Array>>();
  const misses = new Map<string, string>();
  for (const { text, hash } of prepared) {
    if (pending.has(hash) || misses.has(hash)) continue;
    const cached = lru.get(hash);
    if (cached) {
      counters.lruHits++;
      pending.set(hash, cached);
    } else {
      misses.set(hash, text);
    }
  }
  if (misses.size > 0) {
    for (const [hash, vector] of fromDisk([...misses.keys()]) ?? new Map<string, Float32Array>()) {
      counters.diskHits++;
      const promise = Promise.resolve(vector);
      lru.set(hash, promise);
      pending.set(hash, promise);
      misses.delete(hash);
    }
  }
  return { pending, misses };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** L2-normalise; non-finite components and zero vectors become all-zero ("no signal"), never NaN. */
function normalise(vector: readonly number[], dimensions: number): Float32Array {
  const out = new Float32Array(dimensions);
  if (vector.length === 0) return out;
  let sum = 0;
  for (let i = 0; i < dimensions; i++) {
    const v = Number.isFinite(vector[i]) ? vector[i] : 0;
    out[i] = v;
    sum += v * v;
  }
  const norm = Math.sqrt(sum);
  if (!(norm > 1e-12)) return new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) out[i] /= norm;
  return out;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolvePromise, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolvePromise(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
