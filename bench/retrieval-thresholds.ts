/**
 * The retrieval quality bar: bench/retrieval-thresholds.json, the numbers bench/RETRIEVAL.md
 * records for the shipped defaults. `npm run eval` fails below them (test/eval); RETRIEVAL.md's
 * "Quality bar" table is this module's `thresholdsTable()` (a test compares the two), so the
 * document and the check cannot drift. `node dist/bench/retrieval-thresholds.js` prints the table.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { QueryMetrics } from './retrieval-metrics.js';
import { REPO_ROOT } from './test-models/test-model-files.js';

export type ThresholdMode = 'bm25' | 'dense' | 'hybrid';
export const THRESHOLD_METRICS = ['recall1', 'recall5', 'recall10', 'ndcg10', 'complete10'] as const satisfies readonly (keyof QueryMetrics)[];

export interface SetThresholds extends Record<ThresholdMode, Record<(typeof THRESHOLD_METRICS)[number], number>> {
  /** Hybrid at least as good as the better single mode on Recall@5 and nDCG@10. */
  hybridBeatsSingleModes?: boolean;
}

export interface RetrievalThresholds {
  description: string;
  /** Keyed by the eval set's folder under bench/data. */
  sets: Record<string, SetThresholds>;
}

export const THRESHOLDS_FILE = `${REPO_ROOT}/bench/retrieval-thresholds.json`;

export function readThresholds(file = THRESHOLDS_FILE): RetrievalThresholds {
  return JSON.parse(readFileSync(file, 'utf8')) as RetrievalThresholds;
}

/** The markdown table of every set, mode and metric, as RETRIEVAL.md carries it. */
export function thresholdsTable(thresholds: RetrievalThresholds = readThresholds()): string {
  const cell = (value: number) => value.toFixed(3).replace(/^0/, '');
  const rows = Object.entries(thresholds.sets).flatMap(([set, bar]) =>
    (['bm25', 'dense', 'hybrid'] as const).map((mode, i) => `| ${i === 0 ? `\`${set}\`` : ''} | ${mode} | ${THRESHOLD_METRICS.map((metric) => cell(bar[mode][metric])).join(' | ')} |`),
  );
  return ['| set (bench/data) | mode | R@1 | R@5 | R@10 | nDCG@10 | C@10 |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${thresholdsTable()}\n`);
}
