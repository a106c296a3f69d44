import type { FusionOptions } from '../../src/retrieval/fuse-rankings.js';
import type { TuningOverrides } from '../../src/retrieval/retrieval-tuning.js';
import type { DenseConfidenceOptions } from './dense-confidence.js';
import type { DiversityOptions } from './diversify-ranking.js';
import type { ExperimentalStepMerge } from './experimental-merge.js';
import { TRAINED_FUSION_MODEL, type CandidateObserver, type FusionModel } from './learned-fusion.js';
import type { ServerEvidenceOptions } from './server-evidence.js';

/**
 * The ranking experiments of bench/RETRIEVAL.md that ship switched off. They reach the index
 * through its one ranking seam (`openHybridIndex({ rank })`, experimental-rank.ts); their
 * defaults here are "off", so a run without overrides ranks exactly as the shipped index.
 */
export interface ExperimentTuning {
  /** `fusion.method: 'learned'`: the logistic model over per-candidate features (learned-fusion.ts). */
  learned: boolean;
  /** The model, and an observer of each request's candidates (how bench/train-fusion.ts records them). */
  learnedFusion: { model: FusionModel; observe?: CandidateObserver };
  /**
   * Query expansion from the embedder's nearest words (word-neighbours.ts): up to `perTerm`
   * catalog words near each request word (cosine ≥ `minSimilarity`; only words no document
   * contains when `unknownOnly`) are searched with BM25 and fused at `weight`. Hybrid only; 0: off.
   */
  expansion: { perTerm: number; minSimilarity: number; unknownOnly: boolean; weight: number };
  /** Also drop Spanish/French/German/Portuguese/Italian function words (other-language-stop-words.ts). */
  otherLanguageStopWords: boolean;
  /** The dense weight per request by how trustworthy dense looks for it (dense-confidence.ts). */
  denseConfidence: DenseConfidenceOptions;
  /** Each part (line, sentence) of a request also searched, at `weight` (split-request.ts); 0 parts: off. */
  parts: { maxParts: number; weight: number };
  /** How steps merge, which steps count, whether steps use BM25, a step's share of the dense weight. */
  steps: ExperimentalStepMerge & { lexical: boolean; denseWeight: number };
  /** How well the request fits each server's tools as a whole (server-evidence.ts); weight 0: off. */
  serverEvidence: ServerEvidenceOptions;
  /** Near-duplicates spread out of the first slots (diversify-ranking.ts); lambda 0: off. */
  diversity: DiversityOptions;
}

export const EXPERIMENTS_OFF: ExperimentTuning = {
  learned: false,
  learnedFusion: { model: TRAINED_FUSION_MODEL },
  expansion: { perTerm: 0, minSimilarity: 0.55, unknownOnly: true, weight: 0.3 },
  otherLanguageStopWords: false,
  denseConfidence: { method: 'off', k: 10, low: 1, high: 1, zMax: 4, outsideLexical: 1 },
  parts: { maxParts: 0, weight: 0 },
  steps: { merge: 'bonus', lead: 0, gate: 0, at: 5, minConfidence: 0, minSteps: 2, lexical: true, denseWeight: 1, bonus: 0.15, bonusDepth: 4 },
  serverEvidence: { weight: 0, minDocs: 2 },
  diversity: { lambda: 0, depth: 30, threshold: 0.75, multiStepOnly: false },
};

type Nested = 'learnedFusion' | 'expansion' | 'denseConfidence' | 'parts' | 'serverEvidence' | 'diversity';

/** Shipped tuning overrides and experiment overrides in one object, as the bench scripts' variants spell them. */
export type BenchTuning = Omit<TuningOverrides, 'fusion' | 'steps'> & {
  fusion?: Partial<Omit<FusionOptions, 'method'>> & { method?: FusionOptions['method'] | 'learned' };
  steps?: TuningOverrides['steps'] & Partial<ExperimentTuning['steps']>;
  otherLanguageStopWords?: boolean;
} & { [K in Nested]?: Partial<ExperimentTuning[K]> };

const SHIPPED_STEP_KEYS = ['maxSteps', 'minWords', 'skipStatements', 'bonus', 'bonusDepth'] as const;

/**
 * Splits bench overrides into the index's own tuning and the experiments; `active` is false
 * when every experiment is off, so the caller can leave the shipped ranking in place.
 */
export function splitBenchTuning(overrides: BenchTuning = {}): { tuning: TuningOverrides; experiments: ExperimentTuning; active: boolean } {
  const { learnedFusion, expansion, denseConfidence, parts, serverEvidence, diversity, otherLanguageStopWords, fusion, steps, ...shipped } = overrides;
  const { method, ...fusionRest } = fusion ?? {};
  const tuning: TuningOverrides = { ...shipped };
  if (fusion) tuning.fusion = { ...fusionRest, ...(method && method !== 'learned' ? { method } : {}) };
  if (steps) tuning.steps = Object.fromEntries(Object.entries(steps).filter(([key]) => (SHIPPED_STEP_KEYS as readonly string[]).includes(key)));
  const off = EXPERIMENTS_OFF;
  const experiments: ExperimentTuning = {
    learned: method === 'learned',
    learnedFusion: { ...off.learnedFusion, ...learnedFusion },
    expansion: { ...off.expansion, ...expansion },
    otherLanguageStopWords: otherLanguageStopWords ?? false,
    denseConfidence: { ...off.denseConfidence, ...denseConfidence },
    parts: { ...off.parts, ...parts },
    steps: { ...off.steps, ...steps },
    serverEvidence: { ...off.serverEvidence, ...serverEvidence },
    diversity: { ...off.diversity, ...diversity },
  };
  const experimentKeys = Object.keys(steps ?? {}).filter((key) => !(SHIPPED_STEP_KEYS as readonly string[]).includes(key));
  const active =
    method === 'learned' ||
    [learnedFusion, expansion, denseConfidence, parts, serverEvidence, diversity, otherLanguageStopWords].some((value) => value !== undefined) ||
    experimentKeys.length > 0;
  return { tuning, experiments, active };
}
