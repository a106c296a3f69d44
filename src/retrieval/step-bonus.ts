/**
 * A soft alternative to the round-robin step merge: each step's top `depth` hits gain a bonus
 * on top of their score for the whole request — `weight ×` the whole request's best score ×
 * how far up the step's list they are (1 for its best, falling linearly to 0 at `depth`). A
 * step's winner that the whole request also finds plausible rises into the first slots; the
 * winner of a fragment ("and my password is …"), which the whole request ranks low, rises
 * less than a bonus-free right answer already stands. Steps that agree with each other (the
 * same tool named twice) add up.
 */
export function applyStepBonus(
  whole: readonly (readonly [number, number])[],
  steps: readonly (readonly (readonly [number, number])[])[],
  options: { weight: number; depth: number },
): [number, number][] {
  const best = whole[0]?.[1] ?? 0;
  const scores = new Map<number, number>(whole.map(([rowid, score]) => [rowid, score]));
  if (options.weight <= 0 || !(best > 0)) return [...scores];
  const depth = Math.max(1, options.depth);
  for (const step of steps) {
    step.slice(0, depth).forEach(([rowid], rank) => {
      scores.set(rowid, (scores.get(rowid) ?? 0) + options.weight * best * (1 - rank / depth));
    });
  }
  return [...scores].sort((a, b) => b[1] - a[1]);
}
