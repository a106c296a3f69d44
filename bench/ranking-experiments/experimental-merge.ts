import type { Ranked } from '../../src/retrieval/merge-rankings.js';
import { applyStepBonus } from '../../src/retrieval/step-bonus.js';
import { diversifyRanking, type DiversityOptions } from './diversify-ranking.js';
import { interleaveSteps } from './interleave-steps.js';
import { selectSteps, type StepSelectionOptions } from './select-steps.js';

/** The step merges measured besides the shipped bonus (bench/RETRIEVAL.md, "Multi-step ranking"). */
export interface ExperimentalStepMerge extends StepSelectionOptions {
  /** `interleave`: round by round after the whole request's top `lead` hits; `bonus`: the shipped lift. */
  merge: 'interleave' | 'bonus';
  lead: number;
  /** A step may only place hits that are in the whole request's top `gate` (0: no gate). */
  gate: number;
  bonus: number;
  bonusDepth: number;
}

/**
 * The shipped merge (src/retrieval/merge-rankings.ts) with the measured alternatives: the final list of a request from the ranking of the whole request and those of its steps
 * (all descending). The confident steps (select-steps.ts) either lift their top hits
 * (`merge: 'bonus'`, step-bonus.ts) or are merged in round by round (`'interleave'`,
 * interleave-steps.ts, each step's hits optionally gated to the whole request's top `gate`);
 * near-duplicates are spread out when diversity is on (diversify-ranking.ts).
 */
export function mergeRankings(
  rankings: readonly Ranked[],
  limit: number,
  tuning: { steps: ExperimentalStepMerge; diversity: DiversityOptions },
  similarity: ((a: number, b: number) => number) | undefined,
): Ranked {
  const [whole = [], ...allSteps] = rankings;
  const { steps: options, diversity } = tuning;
  const steps = allSteps.length > 0 ? selectSteps(allSteps, options) : [];
  // A single-need request has one right tool; its lookalikes are the likeliest runners-up.
  const diversify = similarity && diversity.lambda > 0 && (!diversity.multiStepOnly || steps.length > 0);
  const spread = (ranking: Ranked, size: number): Ranked =>
    diversify ? [...diversifyRanking(ranking, size, similarity, diversity), ...ranking.slice(Math.max(size, diversity.depth))] : ranking;
  if (steps.length === 0) return spread(whole, limit).slice(0, limit);
  if (options.merge === 'bonus') {
    return spread(applyStepBonus(whole, steps, { weight: options.bonus, depth: options.bonusDepth }), limit).slice(0, limit);
  }
  const inWhole = new Set(whole.slice(0, options.gate).map(([rowid]) => rowid));
  const gated = (ranking: Ranked) => (options.gate > 0 ? ranking.filter(([rowid]) => inWhole.has(rowid)) : ranking);
  return interleaveSteps([spread(whole, diversity.depth), ...steps.map(gated)], limit, options);
}
