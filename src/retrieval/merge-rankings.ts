import { applyStepBonus } from './step-bonus.js';

export type Ranked = [number, number][];

/**
 * The final list of a request from the ranking of the whole request and those of its steps
 * (all descending): each step's top `bonusDepth` hits gain a bonus on top of their
 * whole-request score (step-bonus.ts). Without steps it is the whole request's ranking.
 */
export function mergeSteps(rankings: readonly Ranked[], limit: number, options: { bonus: number; bonusDepth: number }): Ranked {
  const [whole = [], ...steps] = rankings;
  if (steps.length === 0) return whole.slice(0, limit);
  return applyStepBonus(whole, steps, { weight: options.bonus, depth: options.bonusDepth }).slice(0, limit);
}
