/**
 * Scale on a realistic base: the 37 recorded real MCP servers of bench/data/real-mcp-catalog,
 * replicated under renamed ids (`filesystem`, `filesystem-1`, …) up to 10,000 tools, served
 * over MCP by catalog-mcp-host.ts and loaded through the real registry into an on-disk index,
 * with the real GloVe embedder (one thread, one-entry memory cache, no vector cache: every
 * request is embedded). Reports:
 *
 * - the first build (connect, `tools/list`, index and embed every server);
 * - a restart on the same index file: a new registry connects every server again and re-syncs
 *   the unchanged catalog (nothing embedded), total and the index's share of it;
 * - `discoverRelevant` p50/p99 as the first offer calls it (tools, limit 8, step by step), with
 *   the request's embeddings included, over the catalog's 97 task texts and 213 per-step
 *   queries; `registry.tools.search` (what `search_tools` calls) and `index.search` alone beside it.
 *
 * `node dist/bench/retrieval-scale-real.js` prints JSON; `node dist/bench/run.js "real catalog"`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { McpRegistry } from '../src/mcp/mcp-registry.js';
import { openHybridIndex, type HybridIndex } from '../src/retrieval/hybrid-index.js';
import type { SearchIndex } from '../src/retrieval/search-index.js';
import { loadRecordedServers, startCatalogHost, type RecordedServer } from './catalog-mcp-host.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { percentile } from './stats.js';

const DATA = 'bench/data/real-mcp-catalog';

/** The recorded servers, copied under new ids until `tools` tools (the last copy cut short). */
export function replicateCatalog(servers: readonly RecordedServer[], tools: number): RecordedServer[] {
  const copies: RecordedServer[] = [];
  let count = 0;
  for (let replica = 0; count < tools; replica++) {
    for (const server of servers) {
      if (count >= tools) break;
      const take = server.tools.slice(0, tools - count);
      copies.push({ ...server, id: replica === 0 ? server.id : `${server.id}-${replica}`, tools: take });
      count += take.length;
    }
  }
  return copies;
}

export async function benchRetrievalScaleReal(options: { tools?: number } = {}): Promise<Record<string, number>> {
  const servers = replicateCatalog(loadRecordedServers(DATA), options.tools ?? 10_000);
  const tasks = readLines(join(DATA, 'queries.jsonl')).map((line) => (JSON.parse(line) as { query: string }).query);
  const queries = [
    ...tasks,
    ...['dev', 'heldout'].flatMap((split) => readLines(join(DATA, split, 'step-queries.jsonl')).flatMap((line) => (JSON.parse(line) as { steps: string[] }).steps)),
  ];
  const host = await startCatalogHost(servers);
  const embedder = resolveEvalEmbedder();
  const dir = mkdtempSync(join(tmpdir(), 'plaited-scale-real-'));
  const path = join(dir, 'index.db');
  let index: HybridIndex | undefined;
  let registry: McpRegistry | undefined;
  try {
    // First build.
    index = await openHybridIndex({ path, embedder });
    let timed = timedIndex(index);
    registry = new McpRegistry({ index: timed });
    let start = performance.now();
    await Promise.all(host.configs.map((config) => registry!.servers.add(config)));
    await registry.idle();
    const buildMs = performance.now() - start;
    const buildSyncMs = timed.syncMs;
    const tools = registry.tools.list().length;
    if (tools !== servers.reduce((sum, server) => sum + server.tools.length, 0)) throw new Error(`registry lists ${tools} tools`);
    await registry.close();
    index.close();

    // Restart on the same index file: everything unchanged, nothing embedded.
    index = await openHybridIndex({ path, embedder });
    timed = timedIndex(index);
    registry = new McpRegistry({ index: timed });
    let unchanged = 0;
    registry.subscribe((event) => void (event.type === 'catalog-indexed' && (unchanged += event.report.unchanged)));
    start = performance.now();
    await Promise.all(host.configs.map((config) => registry!.servers.add(config)));
    await registry.idle();
    const restartMs = performance.now() - start;
    if (unchanged !== tools) throw new Error(`restart re-sync saw ${unchanged} unchanged of ${tools}`);

    // Warm-up: JIT, the vector snapshot and SQLite's page cache, as in a running agent.
    for (const query of queries.slice(0, 20)) await registry.discoverRelevant(`${query} warm-up`, { limit: 8, kinds: ['tool'] });
    const time = async (run: (query: string) => Promise<unknown>) => {
      const times: number[] = [];
      for (const query of queries) {
        const begin = performance.now();
        await run(query);
        times.push(performance.now() - begin);
      }
      return times;
    };
    // Each loop sees every query once, after a different one: the one-entry cache never answers.
    const discover = await time((query) => registry!.discoverRelevant(query, { limit: 8, kinds: ['tool'] }));
    const discoverAll = await time((query) => registry!.discoverRelevant(query, { limit: 8 }));
    const toolSearch = await time((query) => registry!.tools.search(query, { limit: 16 }));
    const indexSearch = await time((query) => index!.search(query, { limit: 8, kinds: ['tool'] }));
    return {
      tools,
      servers: servers.length,
      queries: queries.length,
      buildMs,
      buildIndexSyncMs: buildSyncMs,
      restartResyncMs: restartMs,
      restartIndexSyncMs: timed.syncMs,
      discoverRelevantP50Ms: percentile(discover, 50),
      discoverRelevantP99Ms: percentile(discover, 99),
      // The whole task texts alone (multi-step: 2–5 searches each).
      discoverRelevantTasksP50Ms: percentile(discover.slice(0, tasks.length), 50),
      discoverRelevantTasksP99Ms: percentile(discover.slice(0, tasks.length), 99),
      discoverRelevantAllKindsP50Ms: percentile(discoverAll, 50),
      discoverRelevantAllKindsP99Ms: percentile(discoverAll, 99),
      searchToolsQueryP50Ms: percentile(toolSearch, 50),
      searchToolsQueryP99Ms: percentile(toolSearch, 99),
      indexSearchP50Ms: percentile(indexSearch, 50),
      indexSearchP99Ms: percentile(indexSearch, 99),
    };
  } finally {
    await registry?.close();
    index?.close();
    await embedder.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The index, with the wall time during which at least one `sync` was under way (servers sync concurrently). */
function timedIndex(inner: SearchIndex): SearchIndex & { syncMs: number } {
  let running = 0;
  let since = 0;
  const timed = {
    syncMs: 0,
    async sync(...args: Parameters<SearchIndex['sync']>) {
      if (running++ === 0) since = performance.now();
      try {
        return await inner.sync(...args);
      } finally {
        if (--running === 0) timed.syncMs += performance.now() - since;
      }
    },
    upsert: (documents: Parameters<SearchIndex['upsert']>[0]) => inner.upsert(documents),
    remove: (ids: readonly string[]) => inner.remove(ids),
    removeNamespace: (namespace: string) => inner.removeNamespace(namespace),
    search: (query: string, options?: Parameters<SearchIndex['search']>[1]) => inner.search(query, options),
    get: (id: string) => inner.get(id),
    close: () => inner.close(),
  };
  return timed;
}

function readLines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchRetrievalScaleReal().then(
    (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`retrieval-scale-real: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
