/**
 * Which steps of a multi-step request earn slots of their own. A real step ("make a word
 * cloud of the topics") ranks a few tools clearly above the crowd; a fragment ("thanks", "and
 * tell me") ranks everything about the same. A step's confidence is how far its best score
 * stands above its score at rank `at` (relative to the best): comparing with a lower rank, not
 * the runner-up, keeps a step whose best hit has near-duplicates on other servers confident.
 * Steps below `minConfidence` get no slot, and the request only counts as multi-step when at
 * least `minSteps` steps remain.
 */
export interface StepSelectionOptions {
  /** The rank (1-based) the best score is compared with. */
  at: number;
  minConfidence: number;
  minSteps: number;
}

export function stepConfidence(ranking: readonly (readonly [number, number])[], at: number): number {
  const best = ranking[0]?.[1] ?? 0;
  if (!(best > 0)) return 0;
  // Fewer hits than `at`: the step matches only a handful of documents, as specific as it gets.
  const rank = Math.max(1, at);
  if (ranking.length < rank) return 1;
  return Math.max(0, (best - ranking[rank - 1][1]) / best);
}

export function selectSteps<T extends readonly (readonly [number, number])[]>(steps: readonly T[], options: StepSelectionOptions): T[] {
  const kept = steps.filter((ranking) => stepConfidence(ranking, options.at) >= options.minConfidence);
  return kept.length >= Math.max(2, options.minSteps) ? kept : [];
}
