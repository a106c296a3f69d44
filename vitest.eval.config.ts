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
    testTimeout: 900_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    pool: 'forks',
  },
});
