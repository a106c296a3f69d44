import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Quality evaluations and training run in `npm run eval` (vitest.eval.config.ts), not here.
    exclude: [...configDefaults.exclude, 'test/eval/**'],
    // Builds the GloVe test embedder and installs tools/conformance when missing (see the file).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: e2e tests spawn real processes, so keep file-level parallelism modest.
    maxWorkers: 2,
    pool: 'forks',
  },
});
