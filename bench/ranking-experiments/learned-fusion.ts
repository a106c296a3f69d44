import { FUSION_FEATURES, fusionCandidates, type FieldScoredRow, type FusionCandidate } from './fusion-features.js';
import { RetrievalError } from '../../src/retrieval/retrieval-error.js';
import type { ScoredRow } from '../../src/retrieval/vector-matrix.js';
import trainedModel from './learned-fusion-weights.json' with { type: 'json' };

/**
 * A logistic model over fusion-features.ts, trained by bench/train-fusion.ts on the public
 * sets only. A candidate's fused score is Σ weight × feature: the logit without its bias, which
 * ranks exactly as the probability does but keeps score fusion's natural zero (a candidate no
 * ranker found scores 0), which the group boost and the step bonus that follow rely on (both
 * add shares of other scores; a probability's floor of ½ would swamp them).
 */
export interface FusionModel {
  /** The feature each weight belongs to; must be FUSION_FEATURES. */
  features: readonly string[];
  weights: readonly number[];
  bias: number;
}

export const TRAINED_FUSION_MODEL: FusionModel = trainedModel;

/** Called with every request's candidates before they are scored (bench/train-fusion.ts records them). */
export type CandidateObserver = (candidates: readonly FusionCandidate[]) => void;

export function learnedFusion(
  lexical: readonly FieldScoredRow[],
  dense: readonly ScoredRow[],
  model: FusionModel,
  observe?: CandidateObserver,
): Map<number, number> {
  assertModel(model);
  const candidates = fusionCandidates(lexical, dense);
  observe?.(candidates);
  return new Map(candidates.map((candidate) => [candidate.rowid, fusionScore(candidate.features, model)]));
}

export function fusionScore(features: Float64Array, model: FusionModel): number {
  let sum = 0;
  for (let i = 0; i < features.length; i++) sum += model.weights[i] * features[i];
  return sum;
}

const checked = new WeakSet<FusionModel>();

function assertModel(model: FusionModel): void {
  if (checked.has(model)) return;
  const matches = model.features.length === FUSION_FEATURES.length && model.features.every((name, i) => name === FUSION_FEATURES[i]);
  if (!matches || model.weights.length !== FUSION_FEATURES.length || !model.weights.every(Number.isFinite) || !Number.isFinite(model.bias)) {
    throw new RetrievalError('INVALID_FUSION_MODEL', 'the learned fusion model does not fit the fusion features: retrain it with bench/train-fusion.ts', {
      context: { expected: FUSION_FEATURES.join(','), got: model.features.join(',') },
    });
  }
  checked.add(model);
}
