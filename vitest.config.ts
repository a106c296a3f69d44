import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that start real processes (the built CLI, bubblewrap, servers) keep a fresh process each,
 * and so does test/storage: its store contract lists sessions by a millisecond timestamp, and warm
 * from other files two of its writes can share a millisecond (the list order then flips).
 * The other files run in-process and share one module graph per worker (isolate off): a fresh
 * process per file cost ~0.6 s of CPU in forking and re-importing the sources, for 108 files
 * whose tests take milliseconds. A helper must therefore not register hooks at module level.
 */
const SPAWNING = ['test/e2e/**', 'test/adapters/**', 'test/fuzz/**', 'test/storage/**'];

export default defineConfig({
  test: {
    // Quality evaluations and training run in `npm run eval` (vitest.eval.config.ts), not here.
    exclude: [...configDefaults.exclude, 'test/eval/**'],
    // Builds the GloVe test embedder and installs tools/conformance when missing (see the file).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: e2e tests spawn real processes, so keep file-level parallelism modest.
    maxWorkers: 2,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'processes', include: SPAWNING.map((glob) => `${glob}/*.test.ts`) } },
      { extends: true, test: { name: 'in-process', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/eval/**', ...SPAWNING], isolate: false } },
    ],
  },
});
