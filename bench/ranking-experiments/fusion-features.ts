import { scoreSpread } from './score-spread.js';
import type { ScoredRow } from '../../src/retrieval/vector-matrix.js';

/** A BM25 hit with its per-field BM25 scores (name, description, args; FTS5 `bm25()` with one field weighted each). */
export interface FieldScoredRow extends ScoredRow {
  name?: number;
  description?: number;
  args?: number;
}

/**
 * The features learned fusion (learned-fusion.ts) reads for one candidate of one request.
 * Every feature is relative to the request's own lists (a score over the list's best, a rank,
 * agreement between the two lists), never a raw BM25 score or cosine: raw BM25 grows with the
 * catalog's size and a raw cosine depends on the embedder, and the weights are trained on the
 * public sets with one embedder but must serve any catalog.
 */
export const FUSION_FEATURES = [
  'bm25',
  'dense',
  'bm25Name',
  'bm25Description',
  'bm25Args',
  'bm25Reciprocal',
  'denseReciprocal',
  'inBm25',
  'denseZ',
  'denseByAgreement',
  'bm25ByGap',
  'denseSquared',
] as const;

export type FusionFeature = (typeof FUSION_FEATURES)[number];

export interface FusionCandidate {
  rowid: number;
  /** In FUSION_FEATURES order. */
  features: Float64Array;
}

/** How many top hits of each list the agreement feature compares, and the dense z-score's depth. */
const TOP = 10;
const Z_DEPTH = 20;

/** Features of every candidate of one request: the union of its BM25 and dense hits (each descending). */
export function fusionCandidates(lexical: readonly FieldScoredRow[], dense: readonly ScoredRow[]): FusionCandidate[] {
  const bestOf = (read: (hit: FieldScoredRow) => number | undefined) => lexical.reduce((best, hit) => Math.max(best, read(hit) ?? 0), 0);
  const best = { bm25: bestOf((hit) => hit.score), name: bestOf((hit) => hit.name), description: bestOf((hit) => hit.description), args: bestOf((hit) => hit.args) };
  const bestDense = Math.max(0, dense[0]?.score ?? 0);
  const ratio = (value: number | undefined, top: number) => (top > 0 && value !== undefined ? Math.max(0, value / top) : 0);

  const denseTop = new Set(dense.slice(0, TOP).map((hit) => hit.rowid));
  const lexicalTop = lexical.slice(0, TOP);
  const agreement = lexicalTop.length > 0 ? lexicalTop.filter((hit) => denseTop.has(hit.rowid)).length / lexicalTop.length : 0;
  const gap = lexical.length === 0 || !(lexical[0].score > 0) ? 0 : lexical.length === 1 ? 1 : 1 - Math.max(0, lexical[1].score) / lexical[0].score;
  const { mean, deviation } = scoreSpread(dense.slice(0, Z_DEPTH).map((hit) => hit.score));

  const lexicalAt = new Map(lexical.map((hit, rank) => [hit.rowid, { hit, rank }]));
  const denseAt = new Map(dense.map((hit, rank) => [hit.rowid, { score: hit.score, rank }]));
  const rowids = new Set([...lexicalAt.keys(), ...denseAt.keys()]);
  return [...rowids].map((rowid) => {
    const lexicalHit = lexicalAt.get(rowid);
    const denseHit = denseAt.get(rowid);
    const denseRatio = ratio(denseHit?.score, bestDense);
    const bm25Ratio = ratio(lexicalHit?.hit.score, best.bm25);
    const z = denseHit && deviation > 0 ? Math.max(-1, Math.min(1, (denseHit.score - mean) / deviation / 4)) : 0;
    const values: Record<FusionFeature, number> = {
      bm25: bm25Ratio,
      dense: denseRatio,
      bm25Name: ratio(lexicalHit?.hit.name, best.name),
      bm25Description: ratio(lexicalHit?.hit.description, best.description),
      bm25Args: ratio(lexicalHit?.hit.args, best.args),
      bm25Reciprocal: lexicalHit ? 1 / (1 + lexicalHit.rank) : 0,
      denseReciprocal: denseHit ? 1 / (1 + denseHit.rank) : 0,
      inBm25: lexicalHit ? 1 : 0,
      denseZ: z,
      denseByAgreement: denseRatio * agreement,
      bm25ByGap: bm25Ratio * gap,
      denseSquared: denseRatio * denseRatio,
    };
    return { rowid, features: Float64Array.from(FUSION_FEATURES, (name) => values[name]) };
  });
}
