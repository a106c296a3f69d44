import type { SqliteDatabase } from '../storage/sqlite/sqlite-database.js';
import type { CatalogSnapshot, RowScope } from './catalog-snapshot.js';
import { fuseRankings, type Ranking } from './fuse-rankings.js';
import { applyGroupBoost } from './group-boost.js';
import { mergeSteps, type Ranked } from './merge-rankings.js';
import type { RetrievalTuning } from './retrieval-tuning.js';
import type { SearchMode } from './search-index.js';
import type { ScoredRow } from './vector-matrix.js';

/**
 * What the index found for one request, per text: the whole request first, then each of its
 * steps (split-steps.ts). A ranker that did not run has no entry (BM25 in `dense` mode, dense
 * without an embedder or in `bm25` mode); one that found nothing has an empty list.
 */
export interface RequestEvidence {
  texts: readonly string[];
  lexical: readonly ScoredRow[][];
  dense: readonly ScoredRow[][];
  /** The texts' unit vectors, when dense ran. */
  vectors: readonly Float32Array[];
}

/** What a ranking function may read of the index it ranks for, and how it may ask it for more. */
export interface RankingContext {
  readonly tuning: RetrievalTuning;
  readonly mode: SearchMode;
  readonly limit: number;
  /** Hits each ranker contributes (at least `limit`). */
  readonly depth: number;
  readonly scope: RowScope;
  /** The index's database (read only), for rankers that need more of it. */
  readonly db: SqliteDatabase;
  /** Kinds, namespaces and vectors of every document. */
  catalog(): CatalogSnapshot;
  /** BM25 hits for FTS terms as given (no cleaning), in the search's scope. */
  bm25(terms: readonly string[], options: { phrases: boolean }): ScoredRow[];
  /** Gathers the evidence for other texts the way the index does; `stopWords` are dropped from them too. */
  gather(texts: readonly string[], options?: { stopWords?: ReadonlySet<string> }): Promise<RequestEvidence>;
}

/**
 * The one ranking seam of the hybrid index (`openHybridIndex({ rank })`): the final list of a
 * request, best first, at most `context.limit` long. The shipped `rankRequest` is the default;
 * the ranking experiments of bench/RETRIEVAL.md plug in here (bench/ranking-experiments).
 */
export type RankRequest = (evidence: RequestEvidence, context: RankingContext) => Ranked | Promise<Ranked>;

/** One text's rankings to fuse: its BM25 hits, then its dense hits. */
export function textRankings(evidence: RequestEvidence, index: number, tuning: RetrievalTuning): Ranking[] {
  const rankings: Ranking[] = [];
  const lexical = evidence.lexical[index];
  const dense = evidence.dense[index];
  if (lexical) rankings.push({ hits: lexical, weight: tuning.bm25Weight });
  if (dense) rankings.push({ hits: dense, weight: tuning.denseWeight, normalization: tuning.denseNormalization });
  return rankings;
}

/** Score fusion (fuse-rankings.ts) lifted by the group boost; a single ranking keeps its own scores. */
export function fuseTextRankings(rankings: readonly Ranking[], context: RankingContext): Map<number, number> {
  if (rankings.length === 1) return new Map(rankings[0].hits.map((hit) => [hit.rowid, hit.score]));
  return boostGroups(fuseRankings(rankings, context.tuning.fusion), context);
}

/** Each hit gains a share of its namespace's other best scores (group-boost.ts). */
export function boostGroups(scores: Map<number, number>, context: RankingContext): Map<number, number> {
  const { meta } = context.catalog();
  return applyGroupBoost(scores, (rowid) => meta.get(rowid)?.namespace ?? '', { boost: context.tuning.groupBoost });
}

export function byScore(scores: Map<number, number>): Ranked {
  return [...scores].sort((a, b) => b[1] - a[1]);
}

/** The shipped ranking: each text fused on its own, then the steps lift their top hits (merge-rankings.ts). */
export const rankRequest: RankRequest = (evidence, context) => {
  const rankings = evidence.texts.map((_, i) => byScore(fuseTextRankings(textRankings(evidence, i, context.tuning), context)));
  return mergeSteps(rankings, context.limit, context.tuning.steps);
};
