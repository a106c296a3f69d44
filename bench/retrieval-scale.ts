/**
 * Scale of the hybrid index: 10,000 synthetic tools over ~300 servers (see
 * retrieval-synthetic-catalog.ts), with the real embedder. Reports the first build, the
 * re-index of the unchanged catalog (target < 200 ms), and search latency over ~200
 * requests with the query embedding included (target p50 < 15 ms), plus the vector-store
 * comparison that chose brute force. Prints JSON when run directly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { openHybridIndex } from '../src/retrieval/hybrid-index.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { percentile } from './stats.js';
import { syntheticCatalog } from './retrieval-synthetic-catalog.js';
import { benchVectorStores } from './retrieval-vector-store.js';

export async function benchRetrievalScale(options: { tools?: number; queries?: number } = {}): Promise<Record<string, number>> {
  const catalog = syntheticCatalog({ tools: options.tools ?? 10_000, servers: 300, queries: options.queries ?? 200 });
  // No vector cache and a one-entry LRU: every query embedding is computed, as for a new request.
  const embedder = resolveEvalEmbedder();
  const dir = mkdtempSync(join(tmpdir(), 'plaited-retrieval-scale-'));
  const index = await openHybridIndex({ path: join(dir, 'index.db'), embedder });
  try {
    let start = performance.now();
    for (const [namespace, documents] of catalog.servers) await index.sync(namespace, documents);
    const buildMs = performance.now() - start;

    // Three re-syncs of the unchanged catalog: the machine is shared, so the best and the median say more than one run.
    const resyncs: number[] = [];
    for (let run = 0; run < 3; run++) {
      start = performance.now();
      let unchanged = 0;
      for (const [namespace, documents] of catalog.servers) unchanged += (await index.sync(namespace, documents)).unchanged;
      resyncs.push(performance.now() - start);
      if (unchanged !== catalog.size) throw new Error(`re-sync saw ${unchanged} unchanged of ${catalog.size}`);
    }

    // Warm-up: JIT, the vector snapshot and SQLite's page cache, as in a running agent.
    for (const query of catalog.queries.slice(0, 20)) await index.search(`${query} warm-up`, { limit: 8 });
    const measure = async (mode: 'hybrid' | 'bm25' | 'dense') => {
      const times: number[] = [];
      for (const query of catalog.queries) {
        const begin = performance.now();
        await index.search(`${query} (${mode})`, { limit: 8, mode });
        times.push(performance.now() - begin);
      }
      return times;
    };
    const hybrid = await measure('hybrid');
    const bm25 = await measure('bm25');
    // The embedder's share of a search: the same requests embedded alone.
    const embeds: number[] = [];
    for (const query of catalog.queries) {
      const begin = performance.now();
      await embedder.embed([`${query} (embed only)`]);
      embeds.push(performance.now() - begin);
    }
    return {
      tools: catalog.size,
      servers: catalog.servers.size,
      buildMs,
      buildDocsPerSec: catalog.size / (buildMs / 1000),
      resyncUnchangedMs: percentile(resyncs, 50),
      resyncUnchangedBestMs: Math.min(...resyncs),
      discoverP50Ms: percentile(hybrid, 50),
      discoverP99Ms: percentile(hybrid, 99),
      bm25P50Ms: percentile(bm25, 50),
      bm25P99Ms: percentile(bm25, 99),
      queryEmbedP50Ms: percentile(embeds, 50),
      ...benchVectorStores({ rows: catalog.size }),
    };
  } finally {
    index.close();
    await embedder.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchRetrievalScale().then(
    (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`retrieval-scale: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
