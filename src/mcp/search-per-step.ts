import { splitSteps } from '../retrieval/split-steps.js';

export interface SearchPerStepOptions {
  limit: number;
  /** At most this many steps are searched on their own (default 4). */
  maxSteps?: number;
}

/**
 * Searches a multi-step request step by step ("find the news, make a word cloud and put it in
 * a PDF": three searches, plus the whole request) and merges round by round: the whole
 * request's best hit, then each step's best, then everyone's second, … until `limit`. One
 * vector for the whole request lands near its dominant step, so a plain search fills the
 * offer with that step's tools; here every step gets its best tool before any gets a second.
 * A request with one step is searched once, as before. Hits are told apart by `key`.
 */
export async function searchPerStep<T>(
  request: string,
  search: (query: string, limit: number) => Promise<T[]>,
  key: (hit: T) => string,
  options: SearchPerStepOptions,
): Promise<T[]> {
  const { limit } = options;
  const steps = splitSteps(request, { maxSteps: options.maxSteps ?? 4 });
  if (steps.length < 2) return search(request, limit);
  // Searched one after another: the embedder runs one request at a time anyway.
  const lists: T[][] = [await search(request, limit)];
  const perStep = Math.max(1, Math.ceil(limit / steps.length));
  for (const step of steps) lists.push(await search(step, perStep));
  const merged = new Map<string, T>();
  for (let round = 0; merged.size < limit && lists.some((list) => round < list.length); round++) {
    for (const list of lists) {
      const hit = list[round];
      if (hit === undefined || merged.size >= limit) continue;
      const id = key(hit);
      if (!merged.has(id)) merged.set(id, hit);
    }
  }
  return [...merged.values()];
}
