/**
 * Picks the weak-match threshold of format-tool-search.ts from data: for each candidate
 * threshold, how many found answers (gold in the top 5) would be flagged "nothing matched
 * well" (false alarms) and how many answers with no fitting tool left (the gold servers
 * removed) would not be (misses). The best threshold on `dev` maximises balanced accuracy;
 * the other splits report how it carries over.
 */
export interface StrengthSample {
  /** The gold was in the top 5. */
  positive: boolean;
  strength: number;
  /** A query whose fitting tools were all removed. */
  negative?: boolean;
}

export interface ThresholdRow {
  threshold: number;
  /** Found answers not flagged (higher is better). */
  foundKept: number;
  /** No-fit answers flagged (higher is better). */
  noFitFlagged: number;
  balanced: number;
}

const CANDIDATES = [0.2, 0.25, 0.3, 0.34, 0.4, 0.5, 0.6, 0.67, 0.75, 0.8, 1];

export function calibrateWeakMatch(samples: Record<string, readonly StrengthSample[]>): { best: number; bySplit: Record<string, ThresholdRow[]> } {
  const bySplit: Record<string, ThresholdRow[]> = {};
  for (const [split, list] of Object.entries(samples)) {
    const found = list.filter((sample) => sample.positive);
    const noFit = list.filter((sample) => sample.negative);
    bySplit[split] = CANDIDATES.map((threshold) => {
      const foundKept = share(found, (sample) => sample.strength >= threshold);
      const noFitFlagged = share(noFit, (sample) => sample.strength < threshold);
      return { threshold, foundKept, noFitFlagged, balanced: (foundKept + noFitFlagged) / 2 };
    });
  }
  const dev = bySplit.dev ?? Object.values(bySplit)[0] ?? [];
  const best = dev.reduce((a, b) => (b.balanced > a.balanced ? b : a), dev[0] ?? { threshold: 0.5, balanced: 0 } as ThresholdRow).threshold;
  return { best, bySplit };
}

function share<T>(list: readonly T[], test: (item: T) => boolean): number {
  return list.length === 0 ? 0 : list.filter(test).length / list.length;
}
