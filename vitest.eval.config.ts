import { defineConfig } from 'vitest/config';

/**
 * `npm run eval`: what measures ranking quality rather than behaviour — the retrieval quality
 * evaluation on every eval set against bench/retrieval-thresholds.json, fusion training, and the
 * tests of the ranking experiments that live in bench/. `npm test` (vitest.config.ts) leaves
 * test/eval out.
 */
export default defineConfig({
  test: {
    include: ['test/eval/**/*.test.ts'],
    // Only the GloVe test embedder is needed (see the file).
    globalSetup: ['test/eval/eval-setup.ts'],
    // One eval set per test: MetaTool (2,497 requests × 3 modes) takes ~2 minutes idle but ran over
    // the former 15-minute bound at load 25, so the bound only catches a hang.
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    pool: 'forks',
  },
});
