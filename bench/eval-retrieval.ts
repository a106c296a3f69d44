/**
 * `npm run eval:retrieval -- [--data DIR] [--mode bm25|dense|hybrid|all] [--embedder SPEC]
 * [--cache FILE] [--json]`: indexes DIR/tools.jsonl through the real hybrid index and ranks
 * every request of DIR/queries.jsonl, printing Recall@1/5/10, nDCG@10, Complete@10 and
 * query latency (p50/p99, query embedding included) per mode. Without --data, both datasets
 * of bench/data/eval (one report, or one JSON line, each).
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { EmbeddingModel } from '../src/model/embedding-model.js';
import type { SearchMode } from '../src/retrieval/search-index.js';
import { openBenchIndex } from './ranking-experiments/open-bench-index.js';
import type { BenchTuning } from './ranking-experiments/experiment-tuning.js';
import { goldGroupsOf, loadDataset, toolDocument } from './retrieval-dataset.js';
import { meanMetrics, queryMetrics, type QueryMetrics } from './retrieval-metrics.js';
import { percentile } from './stats.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { evalDataDir } from './test-models/test-model-files.js';

export interface ModeReport extends QueryMetrics {
  p50ms: number;
  p99ms: number;
}

export type Report = Partial<Record<SearchMode, ModeReport>>;

export interface EvaluateRetrievalOptions {
  dataDir: string;
  modes: readonly SearchMode[];
  /** Needed for dense and hybrid; without one only bm25 can run. */
  embedder?: EmbeddingModel;
  /** Ranking overrides, for ablations and the experiments of bench/ranking-experiments. */
  tuning?: BenchTuning;
  /** Only the first n queries (quick checks). */
  limitQueries?: number;
}

export async function evaluateRetrieval(options: EvaluateRetrievalOptions): Promise<Report> {
  const dataset = loadDataset(options.dataDir);
  const index = await openBenchIndex({ path: ':memory:', embedder: options.embedder, tuning: options.tuning });
  try {
    const byNamespace = new Map<string, ReturnType<typeof toolDocument>[]>();
    for (const document of dataset.tools.map(toolDocument)) {
      const list = byNamespace.get(document.namespace) ?? [];
      list.push(document);
      byNamespace.set(document.namespace, list);
    }
    for (const [namespace, documents] of byNamespace) await index.sync(namespace, documents);
    const queries = options.limitQueries ? dataset.queries.slice(0, options.limitQueries) : dataset.queries;
    const report: Report = {};
    for (const mode of options.modes) {
      const metrics: QueryMetrics[] = [];
      const latencies: number[] = [];
      for (const query of queries) {
        const start = performance.now();
        const hits = await index.search(query.query, { limit: 10, mode });
        latencies.push(performance.now() - start);
        metrics.push(queryMetrics(hits.map((hit) => hit.id), goldGroupsOf(query)));
      }
      report[mode] = { ...meanMetrics(metrics), p50ms: percentile(latencies, 50), p99ms: percentile(latencies, 99) };
    }
    return report;
  } finally {
    index.close();
  }
}

export function formatReport(dataset: string, report: Report): string {
  const rows = Object.entries(report).map(
    ([mode, r]) =>
      `${mode.padEnd(7)} ${[r.recall1, r.recall5, r.recall10, r.ndcg10, r.complete10].map((v) => v.toFixed(3).padStart(6)).join(' ')}` +
      `  ${r.p50ms.toFixed(2).padStart(6)} ${r.p99ms.toFixed(2).padStart(6)}`,
  );
  return [`${dataset}`, 'mode      R@1    R@5   R@10 nDCG10  C@10  p50ms  p99ms', ...rows].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      mode: { type: 'string', default: 'all' },
      embedder: { type: 'string' },
      cache: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const dataDirs = values.data ? [values.data] : [evalDataDir('metatool'), evalDataDir('apibank')];
  const allModes: SearchMode[] = ['bm25', 'dense', 'hybrid'];
  const modes = values.mode === 'all' ? allModes : [values.mode as SearchMode];
  if (!modes.every((mode) => allModes.includes(mode))) throw new Error(`--mode must be bm25, dense, hybrid or all, not ${values.mode}`);
  const needsEmbedder = modes.some((mode) => mode !== 'bm25');
  const embedder = needsEmbedder ? resolveEvalEmbedder({ spec: values.embedder, cacheDb: values.cache }) : undefined;
  try {
    for (const dataDir of dataDirs) {
      const report = await evaluateRetrieval({ dataDir, modes, embedder });
      process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : `${formatReport(dataDir, report)}\n`);
    }
  } finally {
    await embedder?.close?.();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`eval-retrieval: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
