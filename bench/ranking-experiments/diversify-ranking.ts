/**
 * Coverage in the final list (maximal marginal relevance): near-duplicates — the same
 * `write_file` on three servers, twenty `generate_*_chart` tools of one server — should not
 * fill every slot of a multi-step request while its other steps' tools wait below. Each slot
 * goes to the candidate with the best relevance (its score relative to the list's best) minus
 * `lambda ×` how much it duplicates a document already placed; similarity below `threshold`
 * counts as no duplication, so only close lookalikes are pushed down.
 */
export interface DiversityOptions {
  /** Weight of the duplication penalty; 0 switches diversification off. */
  lambda: number;
  /** How many of the best candidates may be moved into the list. */
  depth: number;
  /** Similarity (cosine) at or below which two documents are not duplicates. */
  threshold: number;
  /** Only for requests with several steps (when step splitting is on and finds them). */
  multiStepOnly: boolean;
}

export function diversifyRanking(
  ranked: readonly (readonly [number, number])[],
  limit: number,
  similarity: (a: number, b: number) => number,
  options: DiversityOptions,
): [number, number][] {
  const pool = ranked.slice(0, Math.max(limit, options.depth)).map(([rowid, score]) => [rowid, score] as [number, number]);
  const top = pool[0]?.[1] ?? 0;
  if (options.lambda <= 0 || pool.length < 2 || !(top > 0)) return pool.slice(0, limit);
  const span = 1 - options.threshold;
  // The largest duplication of each candidate against everything placed so far.
  const duplication = new Float64Array(pool.length);
  const placed = new Uint8Array(pool.length);
  const merged: [number, number][] = [];
  let last = Number.POSITIVE_INFINITY;
  while (merged.length < Math.min(limit, pool.length)) {
    let best = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < pool.length; i++) {
      if (placed[i]) continue;
      const value = pool[i][1] / top - options.lambda * duplication[i];
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    placed[best] = 1;
    last = Math.min(last, pool[best][1]);
    merged.push([pool[best][0], last]);
    for (let i = 0; i < pool.length; i++) {
      if (placed[i]) continue;
      const excess = span > 0 ? (similarity(pool[i][0], pool[best][0]) - options.threshold) / span : 0;
      if (excess > duplication[i]) duplication[i] = excess;
    }
  }
  return merged;
}
