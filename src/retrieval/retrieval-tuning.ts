import { DEFAULT_FIELD_WEIGHTS, type FieldWeights } from './field-weights.js';
import type { DiversityOptions } from './diversify-ranking.js';
import type { FusionOptions, Normalization } from './fuse-rankings.js';
import type { StepSelectionOptions } from './select-steps.js';
import type { ServerEvidenceOptions } from './server-evidence.js';
import type { DenseConfidenceOptions } from './dense-confidence.js';
import { TRAINED_FUSION_MODEL, type CandidateObserver, type FusionModel } from './learned-fusion.js';

/**
 * Every ranking choice of the index in one place, so the evaluation can switch each one
 * off and measure it (bench/RETRIEVAL.md holds the ablation). Callers normally leave it
 * alone; `openHybridIndex({ tuning })` overrides parts of it.
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
  /**
   * A tool whose description has fewer than this many words gets its argument text in the
   * description column too, so it weighs as a description instead of as arguments (0: off).
   */
  argsForShortDescriptions: number;
  /**
   * Query expansion from the embedder's nearest words (word-neighbours.ts): up to `perTerm`
   * catalog words near each request word (cosine ≥ `minSimilarity`; only words no document
   * contains when `unknownOnly`) are searched with BM25 and fused at `weight`. Hybrid mode
   * only; perTerm 0: off.
   */
  expansion: { perTerm: number; minSimilarity: number; unknownOnly: boolean; weight: number };
  /** Also drop Spanish/French/German/Portuguese/Italian function words from requests (other-language-stop-words.ts). */
  otherLanguageStopWords: boolean;
  /** Embed the cleaned query instead of the raw request. */
  cleanDenseQuery: boolean;
  fusion: FusionOptions;
  /**
   * For `fusion.method: 'learned'`: the logistic model over per-candidate features
   * (learned-fusion.ts, trained on the public sets by bench/train-fusion.ts), and an observer
   * of each request's candidates (how the training script records them). It fuses the
   * request's own BM25 and dense lists: parts, expansion and denseConfidence do not apply.
   */
  learnedFusion: { model: FusionModel; observe?: CandidateObserver };
  bm25Weight: number;
  denseWeight: number;
  /** The dense weight per request by how trustworthy dense looks for it (dense-confidence.ts); method 'off': fixed. */
  denseConfidence: DenseConfidenceOptions;
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
   * Multi-part requests: each part (line, sentence) is also searched, adding `weight ×` its
   * normalised scores, for up to `maxParts` parts (see split-request.ts). 0 parts: off.
   */
  parts: { maxParts: number; weight: number };
  /**
   * Multi-step requests at clause level: up to `maxSteps` steps (split-steps.ts; a step needs
   * `minWords` words) are ranked on their own, all embedded in one call with the request, and
   * merged with the whole request (merge-rankings.ts): `bonus` lifts each step's top hits
   * (step-bonus.ts), `interleave` places them round by round after the whole request's top
   * `lead` hits (interleave-steps.ts). Only steps whose own ranking is confident count (`at`,
   * `minConfidence`, `minSteps`: select-steps.ts). maxSteps 0: off.
   */
  steps: StepSelectionOptions & {
    maxSteps: number;
    minWords: number;
    lead: number;
    /** A step may only place hits that are in the whole request's top `gate` (0: no gate). */
    gate: number;
    /** `interleave`: round by round; `bonus`: steps lift their top hits softly (step-bonus.ts). */
    merge: 'interleave' | 'bonus';
    /** Rank steps with BM25 too, not only by their vectors. */
    lexical: boolean;
    /** Clauses that only state a value ("my username is …") are no steps (split-steps.ts). */
    skipStatements: boolean;
    /** A step's dense weight as a share of the whole request's (short fragments embed noisily). */
    denseWeight: number;
    /** For `bonus`: the lift of a step's best hit, as a share of the whole request's best score. */
    bonus: number;
    bonusDepth: number;
  };
  /** How well the request fits each server's tools as a whole (server-evidence.ts); weight 0: off. */
  serverEvidence: ServerEvidenceOptions;
  /** Near-duplicates spread out of the first slots (diversify-ranking.ts); lambda 0: off. */
  diversity: DiversityOptions;
  /**
   * Text given to the embedder for a document: capped at `maxWords`, with the argument text,
   * and with the group's (server's) description when the document's own description has fewer
   * than `groupBelowWords` words (0: never).
   */
  embedding: { maxWords: number; includeArgs: boolean; groupBelowWords: number; dropStopWords: boolean; firstSentence: boolean };
}

export const DEFAULT_TUNING: RetrievalTuning = {
  fieldWeights: DEFAULT_FIELD_WEIGHTS,
  cleanQuery: true,
  phrases: true,
  dropLiterals: true,
  splitGluedNames: true,
  cjkBigrams: true,
  argsForShortDescriptions: 0,
  otherLanguageStopWords: false,
  expansion: { perTerm: 0, minSimilarity: 0.55, unknownOnly: true, weight: 0.3 },
  cleanDenseQuery: true,
  fusion: { method: 'score', normalization: 'max' },
  learnedFusion: { model: TRAINED_FUSION_MODEL },
  bm25Weight: 1,
  denseWeight: 1.3,
  denseConfidence: { method: 'off', k: 10, low: 1, high: 1, zMax: 4, outsideLexical: 1 },
  candidateDepth: 100,
  denseScoresForBm25: true,
  groupBoost: 0.1,
  parts: { maxParts: 0, weight: 0 },
  steps: { maxSteps: 6, minWords: 2, merge: 'bonus', denseWeight: 1, bonus: 0.15, bonusDepth: 4, skipStatements: true, lexical: true, lead: 0, gate: 0, at: 5, minConfidence: 0, minSteps: 2 },
  serverEvidence: { weight: 0, minDocs: 2 },
  diversity: { lambda: 0, depth: 30, threshold: 0.75, multiStepOnly: false },
  embedding: { maxWords: 160, includeArgs: true, groupBelowWords: 0, dropStopWords: false, firstSentence: false },
};

export type TuningOverrides = Partial<
  Omit<RetrievalTuning, 'fieldWeights' | 'fusion' | 'embedding' | 'parts' | 'steps' | 'serverEvidence' | 'diversity' | 'expansion' | 'denseConfidence' | 'learnedFusion'>
> & {
  serverEvidence?: Partial<RetrievalTuning['serverEvidence']>;
  diversity?: Partial<RetrievalTuning['diversity']>;
  expansion?: Partial<RetrievalTuning['expansion']>;
  denseConfidence?: Partial<RetrievalTuning['denseConfidence']>;
  learnedFusion?: Partial<RetrievalTuning['learnedFusion']>;
  parts?: Partial<RetrievalTuning['parts']>;
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
    parts: { ...DEFAULT_TUNING.parts, ...overrides.parts },
    steps: { ...DEFAULT_TUNING.steps, ...overrides.steps },
    expansion: { ...DEFAULT_TUNING.expansion, ...overrides.expansion },
    denseConfidence: { ...DEFAULT_TUNING.denseConfidence, ...overrides.denseConfidence },
    learnedFusion: { ...DEFAULT_TUNING.learnedFusion, ...overrides.learnedFusion },
    serverEvidence: { ...DEFAULT_TUNING.serverEvidence, ...overrides.serverEvidence },
    diversity: { ...DEFAULT_TUNING.diversity, ...overrides.diversity },
  };
}

/**
 * The tuning fields that change what is stored for a document: an index written with another
 * recipe is rewritten by its next sync (index-schema.ts).
 */
export function indexRecipe(tuning: RetrievalTuning): string {
  return JSON.stringify({
    splitGluedNames: tuning.splitGluedNames,
    // The newer text options only when on, so an index written before they existed keeps its recipe.
    embedding: recipeOf(tuning.embedding),
    ...(tuning.cjkBigrams ? { cjkBigrams: true } : {}),
    ...(tuning.argsForShortDescriptions ? { argsBelowWords: tuning.argsForShortDescriptions } : {}),
  });
}

function recipeOf({ dropStopWords, firstSentence, ...embedding }: RetrievalTuning['embedding']): object {
  return { ...embedding, ...(dropStopWords ? { dropStopWords } : {}), ...(firstSentence ? { firstSentence } : {}) };
}
