import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRetrieval } from '../../bench/eval-retrieval.js';
import { readThresholds, THRESHOLD_METRICS } from '../../bench/retrieval-thresholds.js';
import type { Embedder } from '../../src/model/embedder.js';
import type { SearchMode } from '../../src/retrieval/search-index.js';
import { createTestEmbedder } from '../retrieval/test-embedder.js';

const DATA = fileURLToPath(new URL('../../bench/data/', import.meta.url));

/** The quality bar of bench/RETRIEVAL.md, from the JSON it points to. */
const THRESHOLDS = readThresholds();

/** Metrics are compared at the three decimals RETRIEVAL.md records them with. */
const recorded = (value: number) => Math.round(value * 1000) / 1000;

/**
 * One test per eval set (bench/data/<set>): indexes its tools with the shipped defaults and the
 * GloVe test embedder, ranks every request in each mode and fails when any metric falls below
 * the recorded number.
 */
export function describeRetrievalQuality(sets: readonly string[]): void {
  let embedder: Embedder;
  beforeAll(() => {
    embedder = createTestEmbedder({ cache: true });
  });
  afterAll(async () => {
    await embedder.close();
  });

  describe.each(sets)('%s', (set) => {
    it('holds every recorded metric in every mode', async () => {
      const bar = THRESHOLDS.sets[set];
      if (!bar) throw new Error(`bench/retrieval-thresholds.json has no entry for ${set}`);
      const dataDir = `${DATA}${set}`;
      if (!existsSync(`${dataDir}/queries.jsonl`)) throw new Error(`missing dataset ${dataDir} (see bench/data/eval/README.md)`);
      const modes: SearchMode[] = ['bm25', 'dense', 'hybrid'];
      const report = await evaluateRetrieval({ dataDir, modes, embedder });
      process.stderr.write(`${set}: ${JSON.stringify(report)}\n`);
      const measured: Record<string, number> = {};
      const expected: Record<string, number> = {};
      for (const mode of modes) {
        for (const metric of THRESHOLD_METRICS) {
          measured[`${mode} ${metric}`] = recorded(report[mode]![metric]);
          expected[`${mode} ${metric}`] = bar[mode][metric];
        }
      }
      // Compared together, so a drop names every metric that fell.
      const fell = Object.keys(expected).filter((key) => measured[key] < expected[key]);
      expect(Object.fromEntries(fell.map((key) => [key, measured[key]]))).toEqual(Object.fromEntries(fell.map((key) => [key, expected[key]])));
      const { bm25, dense, hybrid } = report as Required<typeof report>;
      if (bar.hybridBeatsSingleModes) {
        expect(hybrid.recall5).toBeGreaterThanOrEqual(Math.max(bm25.recall5, dense.recall5));
        expect(hybrid.ndcg10).toBeGreaterThanOrEqual(Math.max(bm25.ndcg10, dense.ndcg10));
      }
      // Every metric is a proper fraction and Recall@k grows with k.
      for (const mode of [bm25, dense, hybrid]) {
        expect(mode.recall1).toBeLessThanOrEqual(mode.recall5);
        expect(mode.recall5).toBeLessThanOrEqual(mode.recall10);
        expect(mode.complete10).toBeLessThanOrEqual(mode.recall10);
      }
    });
  });
}
