import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Node 20 reads NODE_EXTRA_CA_CERTS at every start, before any code runs (~60 ms of CPU here, where
 * the machine sets it for its registry proxy). The suite starts ~600 Node processes and none of them
 * reaches past loopback (npm, which packed-library.test.ts runs, has its own `cafile`), so its
 * workers, and every process they start, go without it.
 */
delete process.env.NODE_EXTRA_CA_CERTS;

/**
 * Every file but test/storage shares one module graph per worker (isolate off): a fresh process
 * per file cost ~0.6 s of CPU in forking and re-importing the sources and the test helpers (the
 * ACP SDK, the compiled ACP schema), which 130 end-to-end files paid again each. A helper must
 * therefore not register hooks at module level, nor keep state a later file could trip on.
 * test/storage keeps a fresh process per file: its store contract lists sessions by a millisecond
 * timestamp, and warm from other files two of its writes can share a millisecond (the list order then flips).
 * The end-to-end files are a project of their own only to keep the two kinds apart in reports.
 */
const SPAWNING = ['test/e2e/**', 'test/adapters/**', 'test/fuzz/**'];
const ISOLATED = ['test/storage/**'];

export default defineConfig({
  test: {
    // Quality evaluations and training run in `npm run eval` (vitest.eval.config.ts), not here.
    exclude: [...configDefaults.exclude, 'test/eval/**'],
    // Builds the GloVe test embedder and installs tools/conformance when missing (see the file).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two workers a core: an end-to-end file waits on its children about a third of the time, so
    // with one a core the two cores were ~70% busy; with two a core they are busy throughout (the
    // suite 310 s → 272 s on the 2-core machine: docs/DESIGN-NOTES.md, Tooling). Capped, since each
    // worker and the CLIs it starts hold memory.
    maxWorkers: Math.min(8, 2 * availableParallelism()),
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED.map((glob) => `${glob}/*.test.ts`) } },
      { extends: true, test: { name: 'processes', include: SPAWNING.map((glob) => `${glob}/*.test.ts`), isolate: false } },
      { extends: true, test: { name: 'in-process', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/eval/**', ...SPAWNING, ...ISOLATED], isolate: false } },
    ],
  },
});
