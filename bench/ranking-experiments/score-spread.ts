/** Mean and (population) standard deviation of a list of scores; both 0 for an empty list. */
export function scoreSpread(scores: readonly number[]): { mean: number; deviation: number } {
  if (scores.length === 0) return { mean: 0, deviation: 0 };
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  return { mean, deviation: Math.sqrt(scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / scores.length) };
}
