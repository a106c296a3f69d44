import type { Normalization, Ranking } from '../../src/retrieval/fuse-rankings.js';
import { scoreSpread } from './score-spread.js';
import type { ScoredRow } from '../../src/retrieval/vector-matrix.js';

/**
 * How much the dense ranker is trusted for one request, measured without labels. A weak
 * embedder (the GloVe test model on real tool text) is sometimes right and often noise, and a
 * fixed fusion weight cannot tell the two apart; a per-request signal can:
 * - `agreement`: the share of BM25's top `k` that is also in the dense top `k` (two rankers
 *   that agree are probably both right; a dense list that shares nothing with a lexical one is
 *   likely off topic);
 * - `separation`: how far dense's best score stands above its top `k` (z-score, scaled by
 *   `zMax` to 0–1): a flat dense list has no opinion;
 * - `lexical`: BM25's gap between its best and second score (a clear lexical winner leaves
 *   dense less to say).
 * The signal s (0–1) moves the dense weight's factor linearly from `low` (s = 0) to `high`
 * (s = 1); `off` is always 1.
 */
export interface DenseConfidenceOptions {
  method: 'off' | 'agreement' | 'separation' | 'lexical';
  k: number;
  low: number;
  high: number;
  /** For `separation`: the z-score that counts as fully confident. */
  zMax: number;
  /**
   * The share of its score a dense hit keeps when BM25 did not find it at all (1: all). A
   * weak embedder's dense-only hits are mostly noise; a strong one's are vocabulary gaps
   * bridged. Needs max normalisation.
   */
  outsideLexical: number;
}

/** The dense ranking to fuse for one request: its weight times the request's confidence, hits outside BM25's list scaled by `outsideLexical`. */
export function denseRanking(
  bm25: readonly ScoredRow[],
  dense: readonly ScoredRow[],
  weight: number,
  options: DenseConfidenceOptions,
  normalization: Normalization | undefined,
): Ranking {
  const trusted = weight * denseConfidence(bm25, dense, options);
  const top = dense[0]?.score ?? 0;
  if (options.outsideLexical === 1 || bm25.length === 0 || !(top > 0) || (normalization ?? 'max') !== 'max') {
    return { hits: dense, weight: trusted, normalization };
  }
  // Normalised against the unscaled best here, so scaling the best hit down does not lift the rest.
  const lexical = new Set(bm25.map((hit) => hit.rowid));
  const hits = dense
    .map((hit) => ({ rowid: hit.rowid, score: (Math.max(0, hit.score) / top) * (lexical.has(hit.rowid) ? 1 : options.outsideLexical) }))
    .sort((a, b) => b.score - a.score);
  return { hits, weight: trusted, normalization: 'none' };
}

export function denseConfidence(bm25: readonly ScoredRow[], dense: readonly ScoredRow[], options: DenseConfidenceOptions): number {
  if (options.method === 'off') return 1;
  const signal = confidenceSignal(bm25, dense, options);
  return options.low + (options.high - options.low) * Math.min(1, Math.max(0, signal));
}

function confidenceSignal(bm25: readonly ScoredRow[], dense: readonly ScoredRow[], options: DenseConfidenceOptions): number {
  const k = Math.max(1, options.k);
  if (options.method === 'agreement') {
    const lexical = bm25.slice(0, k);
    // Nothing to compare with: no lexical evidence against the dense list either.
    if (lexical.length === 0) return 1;
    const top = new Set(dense.slice(0, k).map((hit) => hit.rowid));
    return lexical.filter((hit) => top.has(hit.rowid)).length / lexical.length;
  }
  if (options.method === 'separation') {
    const top = dense.slice(0, k);
    if (top.length < 2) return 0;
    const { mean, deviation } = scoreSpread(top.map((hit) => hit.score));
    return deviation > 0 ? (top[0].score - mean) / deviation / options.zMax : 0;
  }
  // lexical: a lone BM25 hit is a clear winner; an empty list none.
  if (bm25.length === 0 || !(bm25[0].score > 0)) return 0;
  return bm25.length === 1 ? 1 : 1 - Math.max(0, bm25[1].score) / bm25[0].score;
}
