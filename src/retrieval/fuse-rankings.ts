/**
 * Fusion of several rankings of the same documents into one. Plain reciprocal rank fusion
 * throws away how sure each ranker is: a weak dense ranker that puts a wrong document
 * first pulls it up as much as a confident BM25 match would. Here each ranker's scores are
 * first normalised against its own result list, so a ranker that separates one document
 * clearly from the rest speaks loudly and one whose scores are flat barely moves anything.
 */
export interface Ranking {
  /** Descending by score. */
  hits: readonly { rowid: number; score: number }[];
  /** Relative trust in this ranker. */
  weight: number;
  /** Overrides the fusion's normalisation for this ranker (`none`: scores already on a 0–1 scale). */
  normalization?: Normalization;
}

export type Normalization = 'minmax' | 'max' | 'none';

export type FusionMethod = 'rrf' | 'score';

export interface FusionOptions {
  method: FusionMethod;
  /** RRF's k. */
  rrfK?: number;
  /** How a ranker's scores become comparable: `max` divided by the best score; `minmax` between the best and the last. */
  normalization?: Normalization;
}

export function fuseRankings(rankings: readonly Ranking[], options: FusionOptions): Map<number, number> {
  const fused = new Map<number, number>();
  for (const ranking of rankings) {
    const { hits, weight } = ranking;
    if (hits.length === 0 || weight === 0) continue;
    if (options.method === 'rrf') {
      const k = options.rrfK ?? 60;
      hits.forEach((hit, rank) => add(fused, hit.rowid, weight / (k + rank + 1)));
      continue;
    }
    const normalise = normaliser(hits, { ...options, normalization: ranking.normalization ?? options.normalization });
    for (const hit of hits) add(fused, hit.rowid, weight * normalise(hit.score));
  }
  return fused;
}

function add(map: Map<number, number>, key: number, value: number): void {
  map.set(key, (map.get(key) ?? 0) + value);
}

function normaliser(hits: Ranking['hits'], options: FusionOptions): (score: number) => number {
  const top = hits[0].score;
  if (options.normalization === 'none') return (score) => Math.max(0, score);
  if (options.normalization === 'max') return (score) => (top > 0 ? Math.max(0, score / top) : 0);
  const bottom = hits.length > 1 ? hits[hits.length - 1].score : 0;
  const span = top - bottom;
  return (score) => (span > 0 ? Math.max(0, (score - bottom) / span) : score === top ? 1 : 0);
}
