import { createHash } from 'node:crypto';
import type { EmbeddingModel } from '../model/embedding-model.js';
import { cosineSimilarity } from '../model/cosine-similarity.js';

/**
 * Reuses answers to near-identical prompts. An entry matches when its prompt's
 * embedding has cosine ≥ `threshold` with the new prompt, it was made with the same
 * tools and the same context (compared by hash: a changed system prompt or tool set
 * means a different question), and it is younger than `ttlMs`. In memory; `onPersist`
 * receives the entries after each change and `initialEntries` brings them back.
 */
export interface SemanticCacheEntry<A = string> {
  prompt: string;
  /** Unit-length embedding of the prompt, as plain numbers so it survives JSON. */
  embedding: number[];
  /** Embedding model id: vectors from different models never compare. */
  modelId: string;
  toolsHash: string;
  contextHash: string;
  answer: A;
  createdAt: number;
}

export interface SemanticCacheKey {
  prompt: string;
  /** Tool names (or a precomputed hash from `hashTools`). */
  tools: readonly string[] | string;
  /** Everything else that shapes the answer (system prompt, conversation so far), or its hash. */
  context: string;
}

export interface SemanticCacheHit<A> {
  entry: SemanticCacheEntry<A>;
  similarity: number;
}

export interface SemanticCacheOptions<A> {
  embedder: EmbeddingModel;
  /** Minimum cosine similarity for a hit (default 0.95). */
  threshold?: number;
  /** Entries older than this are ignored and dropped (default one hour). */
  ttlMs?: number;
  /** Oldest entries are dropped beyond this many (default 1,000). */
  maxEntries?: number;
  initialEntries?: readonly SemanticCacheEntry<A>[];
  onPersist?(entries: SemanticCacheEntry<A>[]): void | Promise<void>;
  now?(): number;
}

export interface SemanticCache<A = string> {
  lookup(key: SemanticCacheKey, options?: { signal?: AbortSignal }): Promise<SemanticCacheHit<A> | undefined>;
  store(key: SemanticCacheKey, answer: A, options?: { signal?: AbortSignal }): Promise<SemanticCacheEntry<A>>;
  entries(): SemanticCacheEntry<A>[];
  clear(): void;
  /** Resolves when the latest `onPersist` call has finished. */
  flush(): Promise<void>;
}

export function createSemanticCache<A = string>(options: SemanticCacheOptions<A>): SemanticCache<A> {
  const threshold = options.threshold ?? 0.95;
  const ttlMs = options.ttlMs ?? 3_600_000;
  const maxEntries = options.maxEntries ?? 1_000;
  const now = options.now ?? Date.now;
  const { embedder } = options;
  let entries: SemanticCacheEntry<A>[] = [...(options.initialEntries ?? [])];
  let pending: Promise<void> = Promise.resolve();

  const persist = (): void => {
    const { onPersist } = options;
    if (!onPersist) return;
    const snapshot = [...entries];
    pending = pending.catch(() => undefined).then(() => onPersist(snapshot));
  };
  const expire = (): boolean => {
    const cutoff = now() - ttlMs;
    const before = entries.length;
    entries = entries.filter((entry) => entry.createdAt > cutoff);
    return entries.length !== before;
  };
  const embedPrompt = async (prompt: string, signal?: AbortSignal): Promise<number[]> => {
    const [vector] = await embedder.embed([prompt], { signal });
    return Array.from(vector);
  };

  return {
    async lookup(key, { signal } = {}) {
      if (expire()) persist();
      const toolsHash = hashTools(key.tools);
      const contextHash = hashContext(key.context);
      const candidates = entries.filter(
        (entry) => entry.toolsHash === toolsHash && entry.contextHash === contextHash && entry.modelId === embedder.modelId,
      );
      if (candidates.length === 0) return undefined;
      const vector = await embedPrompt(key.prompt, signal);
      let best: SemanticCacheHit<A> | undefined;
      for (const entry of candidates) {
        const similarity = entry.prompt === key.prompt ? 1 : cosine(vector, entry.embedding);
        if (similarity >= threshold && (!best || similarity > best.similarity)) best = { entry, similarity };
      }
      return best;
    },
    async store(key, answer, { signal } = {}) {
      const entry: SemanticCacheEntry<A> = {
        prompt: key.prompt,
        embedding: await embedPrompt(key.prompt, signal),
        modelId: embedder.modelId,
        toolsHash: hashTools(key.tools),
        contextHash: hashContext(key.context),
        answer,
        createdAt: now(),
      };
      expire();
      // A newer answer to the same question replaces the older one.
      entries = entries.filter((old) => !(old.prompt === entry.prompt && old.toolsHash === entry.toolsHash && old.contextHash === entry.contextHash));
      entries.push(entry);
      if (entries.length > maxEntries) entries = entries.slice(entries.length - maxEntries);
      persist();
      return entry;
    },
    entries: () => [...entries],
    clear() {
      entries = [];
      persist();
    },
    flush: () => pending,
  };
}

/** Order-independent hash of a tool set; a string is taken as an already computed hash. */
export function hashTools(tools: readonly string[] | string): string {
  if (typeof tools === 'string') return tools;
  return sha256([...new Set(tools)].sort().join('\n'));
}

function hashContext(context: string): string {
  return /^[0-9a-f]{64}$/.test(context) ? context : sha256(context);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Cosine similarity; 0 when either vector carries no signal or the lengths differ, never NaN. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return a.length !== b.length || a.length === 0 ? 0 : cosineSimilarity(a, b);
}
