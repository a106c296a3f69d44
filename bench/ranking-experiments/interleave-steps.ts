/**
 * Merges the ranking of the whole request with the rankings of its steps round by round:
 * every ranking's best unseen hit comes before any ranking's second, so each step of a
 * multi-step request gets a slot in the first few results instead of the dominant step taking
 * them all. Scores are kept from the ranking each hit was taken from, clamped so the merged list
 * never rises (callers may still sort by score).
 */
export function interleaveSteps(
  rankings: readonly (readonly [number, number])[][],
  limit: number,
  options: { lead?: number } = {},
): [number, number][] {
  const merged: [number, number][] = [];
  const taken = new Set<number>();
  const cursors = rankings.map(() => 0);
  let last = Number.POSITIVE_INFINITY;
  // The first ranking (the whole request) may keep its top `lead` hits before the rounds start.
  for (const [rowid, score] of (rankings[0] ?? []).slice(0, Math.min(options.lead ?? 0, limit))) {
    taken.add(rowid);
    last = Math.min(last, score);
    merged.push([rowid, last]);
  }
  while (merged.length < limit) {
    let progressed = false;
    for (let i = 0; i < rankings.length && merged.length < limit; i++) {
      const ranking = rankings[i];
      while (cursors[i] < ranking.length && taken.has(ranking[cursors[i]][0])) cursors[i]++;
      if (cursors[i] >= ranking.length) continue;
      const [rowid, score] = ranking[cursors[i]++];
      taken.add(rowid);
      last = Math.min(last, score);
      merged.push([rowid, last]);
      progressed = true;
    }
    if (!progressed) break;
  }
  return merged;
}
