/**
 * What multi-step ranking (tuning.steps) costs at scale: 10,000 synthetic tools over 300
 * servers (retrieval-synthetic-catalog.ts), the real embedder with no vector cache and a
 * one-entry memory cache (every request and step embedded, all texts of a request in one
 * call), hybrid search p50/p99 for single requests and for requests of two and three steps,
 * with the shipped steps and with steps off. `node dist/bench/retrieval-scale-steps.js`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { openHybridIndex, type HybridIndex } from '../src/retrieval/hybrid-index.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { percentile } from './stats.js';
import { syntheticCatalog } from './retrieval-synthetic-catalog.js';

export async function benchScaleSteps(options: { tools?: number; queries?: number } = {}): Promise<Record<string, number>> {
  const catalog = syntheticCatalog({ tools: options.tools ?? 10_000, servers: 300, queries: options.queries ?? 200 });
  const embedder = resolveEvalEmbedder();
  const dir = mkdtempSync(join(tmpdir(), 'plaited-retrieval-scale-steps-'));
  const path = join(dir, 'index.db');
  const withSteps = await openHybridIndex({ path, embedder });
  const withoutSteps = await openHybridIndex({ path, embedder, tuning: { steps: { maxSteps: 0 } } });
  try {
    for (const [namespace, documents] of catalog.servers) await withSteps.sync(namespace, documents);
    const q = catalog.queries;
    const single = q;
    const two = q.map((query, i) => `${query}, then ${q[(i + 1) % q.length]}`);
    const three = q.map((query, i) => `${query}, ${q[(i + 1) % q.length]} and ${q[(i + 2) % q.length]}`);
    const measure = async (index: HybridIndex, requests: readonly string[], tag: string) => {
      for (const request of requests.slice(0, 20)) await index.search(`${request} warm-up ${tag}`, { limit: 8 });
      const times: number[] = [];
      for (const request of requests) {
        const begin = performance.now();
        // A distinct suffix per run, so no request is served from the embedder's memory cache.
        await index.search(`${request} ${tag}`, { limit: 8 });
        times.push(performance.now() - begin);
      }
      return { p50: percentile(times, 50), p99: percentile(times, 99) };
    };
    const result: Record<string, number> = { tools: catalog.size };
    for (const [name, requests] of Object.entries({ single, two, three })) {
      const on = await measure(withSteps, requests, 'on');
      const off = await measure(withoutSteps, requests, 'off');
      Object.assign(result, {
        [`${name}StepsP50Ms`]: on.p50,
        [`${name}StepsP99Ms`]: on.p99,
        [`${name}NoStepsP50Ms`]: off.p50,
        [`${name}NoStepsP99Ms`]: off.p99,
      });
    }
    return result;
  } finally {
    withSteps.close();
    withoutSteps.close();
    await embedder.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchScaleSteps().then(
    (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`retrieval-scale-steps: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
