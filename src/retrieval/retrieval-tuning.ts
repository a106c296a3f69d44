import { DEFAULT_FIELD_WEIGHTS, type FieldWeights } from './field-weights.js';
import type { FusionOptions, Normalization } from './fuse-rankings.js';

/**
 * Every shipped ranking choice of the index in one place, so the evaluation can switch each
 * one off and measure it (bench/RETRIEVAL.md holds the ablation). Callers normally leave it
 * alone; `openHybridIndex({ tuning })` overrides parts of it. Experiments that ship switched
 * off live in bench/ranking-experiments, behind the index's `rank` seam (rank-request.ts).
 */
export interface RetrievalTuning {
  fieldWeights: FieldWeights;
  /** Drop request framing and function words before BM25 (see clean-query.ts). */
  cleanQuery: boolean;
  /** Also match adjacent query terms as phrases in BM25. */
  phrases: boolean;
  /** Drop literal values (numbers, dates, ids, e-mail addresses) from the query. */
  dropLiterals: boolean;
  /** Cut names glued from words apart (see segment-glued-name.ts). */
  splitGluedNames: boolean;
  /**
   * Index and query Chinese/Japanese/Korean runs as character bigrams (cjk-bigrams.ts); a
   * request without CJK characters is ranked exactly as without it.
   */
  cjkBigrams: boolean;
  /** Embed the cleaned query instead of the raw request. */
  cleanDenseQuery: boolean;
  fusion: FusionOptions;
  bm25Weight: number;
  denseWeight: number;
  /** Normalisation of the dense ranker's scores, when it should differ from `fusion.normalization`. */
  denseNormalization?: Normalization;
  /** How many hits each ranker contributes to fusion. */
  candidateDepth: number;
  /**
   * Give every BM25 candidate its exact dense score, not only the dense top `candidateDepth`:
   * vectors are in memory, so a good lexical match is never fused with a "0" that only means
   * "not in the dense top list" (which matters most for large catalogs).
   */
  denseScoresForBm25: boolean;
  /**
   * How much a document's group (namespace) lifts it: tools of a server whose other tools
   * also match the request are more likely right (see group-boost.ts). 0 switches it off.
   */
  groupBoost: number;
  /**
   * Multi-step requests at clause level: up to `maxSteps` steps (split-steps.ts; a step needs
   * `minWords` words) are ranked on their own (BM25 and dense, all embedded in one call with
   * the request), and each step's top `bonusDepth` hits gain `bonus ×` the whole request's best
   * score, falling with their rank (step-bonus.ts). maxSteps 0: off.
   */
  steps: {
    maxSteps: number;
    minWords: number;
    /** Clauses that only state a value ("my username is …") are no steps (split-steps.ts). */
    skipStatements: boolean;
    /** The lift of a step's best hit, as a share of the whole request's best score. */
    bonus: number;
    bonusDepth: number;
  };
  /** Text given to the embedder for a document: capped at `maxWords`, with the argument text. */
  embedding: { maxWords: number; includeArgs: boolean };
}

export const DEFAULT_TUNING: RetrievalTuning = {
  fieldWeights: DEFAULT_FIELD_WEIGHTS,
  cleanQuery: true,
  phrases: true,
  dropLiterals: true,
  splitGluedNames: true,
  cjkBigrams: true,
  cleanDenseQuery: true,
  fusion: { method: 'score', normalization: 'max' },
  bm25Weight: 1,
  denseWeight: 1.3,
  candidateDepth: 100,
  denseScoresForBm25: true,
  groupBoost: 0.1,
  steps: { maxSteps: 6, minWords: 2, bonus: 0.15, bonusDepth: 4, skipStatements: true },
  embedding: { maxWords: 160, includeArgs: true },
};

export type TuningOverrides = Partial<
  Omit<RetrievalTuning, 'fieldWeights' | 'fusion' | 'embedding' | 'steps'>
> & {
  steps?: Partial<RetrievalTuning['steps']>;
  fieldWeights?: Partial<FieldWeights>;
  fusion?: Partial<FusionOptions>;
  embedding?: Partial<RetrievalTuning['embedding']>;
};

export function resolveTuning(overrides: TuningOverrides = {}): RetrievalTuning {
  return {
    ...DEFAULT_TUNING,
    ...overrides,
    fieldWeights: { ...DEFAULT_TUNING.fieldWeights, ...overrides.fieldWeights },
    fusion: { ...DEFAULT_TUNING.fusion, ...overrides.fusion },
    embedding: { ...DEFAULT_TUNING.embedding, ...overrides.embedding },
    steps: { ...DEFAULT_TUNING.steps, ...overrides.steps },
  };
}

/**
 * The tuning fields that change what is stored for a document: an index written with another
 * recipe is rewritten by its next sync (index-schema.ts).
 */
export function indexRecipe(tuning: RetrievalTuning): string {
  return JSON.stringify({
    splitGluedNames: tuning.splitGluedNames,
    // groupBelowWords (an experiment, removed) stays at its 0, so indexes written before keep their recipe.
    embedding: { ...tuning.embedding, groupBelowWords: 0 },
    ...(tuning.cjkBigrams ? { cjkBigrams: true } : {}),
  });
}
