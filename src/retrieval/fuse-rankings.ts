import { scoreSpread } from './score-spread.js';

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

export type Normalization = 'minmax' | 'zscore' | 'max' | 'none';

export type FusionMethod = 'rrf' | 'score';

export interface FusionOptions {
  method: FusionMethod;
  /** RRF's k. */
  rrfK?: number;
  /**
   * For score fusion: each ranker's scores are min-max normalised between its best score
   * and the score at this depth (or its last), so the tail of a long flat list maps to ~0.
   */
  normDepth?: number;
  /**
   * How a ranker's scores become comparable: `minmax` between the best score and the score
   * at `normDepth`; `zscore` as standard deviations above the list's mean (a ranker whose
   * best hit stands far out of its crowd is confident); `max` divided by the best score.
   */
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
  const depth = Math.min(options.normDepth ?? hits.length, hits.length);
  const top = hits[0].score;
  if (options.normalization === 'none') return (score) => Math.max(0, score);
  if (options.normalization === 'max') return (score) => (top > 0 ? Math.max(0, score / top) : 0);
  if (options.normalization === 'zscore') {
    const { mean, deviation } = scoreSpread(hits.slice(0, depth).map((hit) => hit.score));
    return (score) => (deviation > 0 ? Math.max(0, (score - mean) / deviation) : score === top ? 1 : 0);
  }
  const bottom = depth > 1 ? hits[depth - 1].score : 0;
  const span = top - bottom;
  return (score) => (span > 0 ? Math.max(0, (score - bottom) / span) : score === top ? 1 : 0);
}
