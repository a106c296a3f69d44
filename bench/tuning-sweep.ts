/**
 * Hybrid R@5 / nDCG@10 of named tuning overrides on several datasets, one markdown row per
 * variant: how the fusion choices of bench/RETRIEVAL.md ("Fusion by confidence, learned
 * fusion") were measured. Tune on the real dev split and the wide catalog's old-dev tasks
 * (public sets as the guard); held-out folders only for a finished candidate.
 *
 * `node dist/bench/tuning-sweep.js [--data DIR]... --variant 'name={"denseWeight":1}'...
 * [--mode hybrid|dense|bm25] [--cache FILE]`. Without --data: real dev, wide old-dev, MetaTool, API-Bank.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { BenchTuning } from './ranking-experiments/experiment-tuning.js';
import type { SearchMode } from '../src/retrieval/search-index.js';
import { evaluateRetrieval } from './eval-retrieval.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { evalDataDir } from './test-models/test-model-files.js';

export const TUNING_SETS = [
  'bench/data/real-mcp-catalog/dev',
  'bench/data/real-mcp-catalog-wide/old-dev',
  evalDataDir('metatool'),
  evalDataDir('apibank'),
];

/** `name={json}` → [name, overrides]; a bare name is the shipped defaults. */
export function parseVariant(text: string): [string, BenchTuning] {
  const at = text.indexOf('=');
  if (at < 0) return [text, {}];
  return [text.slice(0, at), JSON.parse(text.slice(at + 1)) as BenchTuning];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', multiple: true },
      variant: { type: 'string', multiple: true },
      cache: { type: 'string' },
      embedder: { type: 'string' },
      mode: { type: 'string', default: 'hybrid' },
    },
  });
  const dataDirs = values.data ?? TUNING_SETS;
  const mode = values.mode as SearchMode;
  if (!['bm25', 'dense', 'hybrid'].includes(mode)) throw new Error(`--mode must be bm25, dense or hybrid, not ${mode}`);
  const variants = (values.variant ?? ['shipped']).map(parseVariant);
  const names = dataDirs.map((dir) => dir.split('/').filter(Boolean).slice(-2).join('/'));
  const embedder = resolveEvalEmbedder({ spec: values.embedder, cacheDb: values.cache });
  try {
    process.stdout.write(`| variant | ${names.map((name) => `${name} R@5 / nDCG@10`).join(' | ')} |\n|---|${names.map(() => '---|').join('')}\n`);
    for (const [name, tuning] of variants) {
      const cells: string[] = [];
      for (const dataDir of dataDirs) {
        const report = await evaluateRetrieval({ dataDir, modes: [mode], embedder, tuning });
        const metrics = report[mode];
        cells.push(metrics ? `${metrics.recall5.toFixed(3)} / ${metrics.ndcg10.toFixed(3)}` : '–');
      }
      process.stdout.write(`| ${name} | ${cells.join(' | ')} |\n`);
    }
  } finally {
    await embedder.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`tuning-sweep: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
