import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateRetrieval, type Report } from '../../bench/eval-retrieval.js';
import { evalDataDir } from '../../bench/test-models/test-model-files.js';
import type { Embedder } from '../../src/model/embedder.js';
import { createTestEmbedder } from './test-embedder.js';

/**
 * The retrieval quality bar of issue 4 on the two public datasets (bench/data/eval), with the GloVe
 * embedder: hybrid at least as good as the better single ranker on Recall@5 and nDCG@10,
 * and the Recall@5 reached (bench/RETRIEVAL.md) held within a small margin.
 */
const TARGETS = {
  // Measured: metatool .690, apibank .932 with multi-step ranking (.687 / .913 before; see bench/RETRIEVAL.md); the targets are .68 / .88.
  metatool: { recall5: 0.68 },
  apibank: { recall5: 0.9 },
} as const;

let embedder: Embedder;
beforeAll(() => {
  embedder = createTestEmbedder({ cache: true });
});
afterAll(async () => {
  await embedder.close();
});

describe.each(Object.keys(TARGETS) as (keyof typeof TARGETS)[])('%s', (dataset) => {
  it('hybrid beats both single rankers and reaches the recall target', { timeout: 120_000 }, async () => {
    const dataDir = evalDataDir(dataset);
    if (!existsSync(`${dataDir}/queries.jsonl`)) throw new Error(`missing dataset ${dataDir} (see bench/data/eval/README.md)`);
    const report: Report = await evaluateRetrieval({ dataDir, modes: ['bm25', 'dense', 'hybrid'], embedder });
    const { bm25, dense, hybrid } = report;
    if (!bm25 || !dense || !hybrid) throw new Error('the report lacks a mode');
    process.stderr.write(`${dataset}: ${JSON.stringify(report)}\n`);
    expect(hybrid.recall5).toBeGreaterThanOrEqual(Math.max(bm25.recall5, dense.recall5));
    expect(hybrid.ndcg10).toBeGreaterThanOrEqual(Math.max(bm25.ndcg10, dense.ndcg10));
    expect(hybrid.recall5).toBeGreaterThanOrEqual(TARGETS[dataset].recall5);
    // Every metric is a proper fraction and Recall@k grows with k.
    for (const mode of [bm25, dense, hybrid]) {
      expect(mode.recall1).toBeLessThanOrEqual(mode.recall5);
      expect(mode.recall5).toBeLessThanOrEqual(mode.recall10);
      expect(mode.complete10).toBeLessThanOrEqual(mode.recall10);
    }
  });
});
