import type { SearchHit, SearchIndex, SearchOptions } from '../retrieval/search-index.js';

/**
 * Index hits that actually match an intent, not merely rank highest. Hybrid scores are
 * relative (normalised per query), so "the best of the rest" always scores well; a hit
 * counts here only when it shares a content word with the intent (BM25 finds it) or its
 * dense cosine similarity reaches `minSimilarity`. Hits come back in hybrid order.
 */
export interface IntentMatchOptions {
  kinds: readonly string[];
  namespaces: readonly string[];
  limit: number;
  /** Cosine similarity that counts as a match without a shared word (default 0.5). */
  minSimilarity?: number;
  signal?: AbortSignal;
}

export async function searchMatching(index: SearchIndex, intent: string, options: IntentMatchOptions): Promise<SearchHit[]> {
  if (!intent.trim()) return [];
  const search: SearchOptions = { kinds: options.kinds, namespaces: options.namespaces, limit: options.limit, signal: options.signal };
  const minSimilarity = options.minSimilarity ?? 0.5;
  const matched = new Set((await index.search(intent, { ...search, mode: 'bm25' })).map((hit) => hit.id));
  for (const hit of await denseHits(index, intent, search)) if (hit.score >= minSimilarity) matched.add(hit.id);
  if (matched.size === 0) return [];
  return (await index.search(intent, search)).filter((hit) => matched.has(hit.id));
}

async function denseHits(index: SearchIndex, intent: string, search: SearchOptions): Promise<SearchHit[]> {
  try {
    return await index.search(intent, { ...search, mode: 'dense' });
  } catch (error) {
    // A BM25-only index has no dense mode; lexical matches still count.
    if ((error as { code?: unknown }).code === 'NO_EMBEDDER') return [];
    throw error;
  }
}
