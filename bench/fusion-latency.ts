/**
 * What learned fusion costs per request at 10,000 tools (bench/RETRIEVAL.md, "Learned
 * fusion"): one on-disk index of the synthetic catalog (retrieval-synthetic-catalog.ts),
 * opened twice on the same file — score fusion and `fusion.method: 'learned'` (per-field
 * BM25 in the SELECT, features, the linear model) — and every request searched by both in
 * turn, so machine load hits both alike. Query embedding included (one-entry cache, as in
 * retrieval-scale.ts). `node dist/bench/fusion-latency.js [--cache FILE]` prints JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { openHybridIndex, type HybridIndex } from '../src/retrieval/hybrid-index.js';
import { openBenchIndex } from './ranking-experiments/open-bench-index.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { percentile } from './stats.js';
import { syntheticCatalog } from './retrieval-synthetic-catalog.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cache: { type: 'string' } } });
  const catalog = syntheticCatalog({ tools: 10_000, servers: 300, queries: 200 });
  // The vector cache (if given) only speeds up the build; queries are embedded anew each time.
  const embedder = resolveEvalEmbedder({ cacheDb: values.cache });
  const dir = mkdtempSync(join(tmpdir(), 'plaited-fusion-latency-'));
  const path = join(dir, 'index.db');
  const indexes: HybridIndex[] = [];
  try {
    const score = await openHybridIndex({ path, embedder });
    indexes.push(score);
    for (const [namespace, documents] of catalog.servers) await score.sync(namespace, documents);
    const learned = await openBenchIndex({ path, embedder, tuning: { fusion: { method: 'learned' } } });
    indexes.push(learned);
    const times = { score: [] as number[], learned: [] as number[] };
    for (const query of catalog.queries.slice(0, 20)) {
      await score.search(`${query} warm-up`, { limit: 8 });
      await learned.search(`${query} warm-up`, { limit: 8 });
    }
    for (const [i, query] of catalog.queries.entries()) {
      // Alternate which goes first, so neither always finds the other's pages cached.
      const order = i % 2 === 0 ? (['score', 'learned'] as const) : (['learned', 'score'] as const);
      for (const name of order) {
        const begin = performance.now();
        await (name === 'score' ? score : learned).search(`${query} (${i})`, { limit: 8 });
        times[name].push(performance.now() - begin);
      }
    }
    const result = {
      tools: catalog.size,
      requests: catalog.queries.length,
      scoreP50Ms: percentile(times.score, 50),
      scoreP99Ms: percentile(times.score, 99),
      learnedP50Ms: percentile(times.learned, 50),
      learnedP99Ms: percentile(times.learned, 99),
      medianDifferenceMs: percentile(times.learned.map((time, i) => time - times.score[i]), 50),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    for (const index of indexes) index.close();
    await embedder.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`fusion-latency: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
