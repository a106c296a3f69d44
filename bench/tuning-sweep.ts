/**
 * Hybrid R@5 / nDCG@10 of named tuning overrides on several datasets, one markdown row per
 * variant: how the fusion choices of bench/RETRIEVAL.md ("Fusion by confidence, learned
 * fusion") were measured. Tune on the real dev split and the wide catalog's old-dev tasks
 * (public sets as the guard); held-out folders only for a finished candidate.
 *
 * `node dist/bench/tuning-sweep.js [--data DIR]... --variant 'name={"denseWeight":1}'...
 * [--cache FILE]`. Without --data: real dev, wide old-dev, MetaTool, API-Bank.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { TuningOverrides } from '../src/retrieval/retrieval-tuning.js';
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
export function parseVariant(text: string): [string, TuningOverrides] {
  const at = text.indexOf('=');
  if (at < 0) return [text, {}];
  return [text.slice(0, at), JSON.parse(text.slice(at + 1)) as TuningOverrides];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', multiple: true },
      variant: { type: 'string', multiple: true },
      cache: { type: 'string' },
      embedder: { type: 'string' },
    },
  });
  const dataDirs = values.data ?? TUNING_SETS;
  const variants = (values.variant ?? ['shipped']).map(parseVariant);
  const names = dataDirs.map((dir) => dir.split('/').filter(Boolean).slice(-2).join('/'));
  const embedder = resolveEvalEmbedder({ spec: values.embedder, cacheDb: values.cache });
  try {
    process.stdout.write(`| variant | ${names.map((name) => `${name} R@5 / nDCG@10`).join(' | ')} |\n|---|${names.map(() => '---|').join('')}\n`);
    for (const [name, tuning] of variants) {
      const cells: string[] = [];
      for (const dataDir of dataDirs) {
        const { hybrid } = await evaluateRetrieval({ dataDir, modes: ['hybrid'], embedder, tuning });
        cells.push(hybrid ? `${hybrid.recall5.toFixed(3)} / ${hybrid.ndcg10.toFixed(3)}` : '–');
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
