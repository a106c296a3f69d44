/**
 * The lexical choices of issue 17 (CJK bigrams, short-description fallbacks, query expansion)
 * measured on every dataset, hybrid and BM25: `node dist/bench/lexical-ablation.js
 * [--data DIR]... [--variant NAME]... [--mode hybrid|bm25]...` prints a markdown table
 * (R@5 / nDCG@10 per dataset). Without --data: the real catalog's dev and held-out splits,
 * the CJK set, MetaTool and API-Bank.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { SearchMode } from '../src/retrieval/search-index.js';
import type { TuningOverrides } from '../src/retrieval/retrieval-tuning.js';
import { evaluateRetrieval } from './eval-retrieval.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { evalDataDir } from './test-models/test-model-files.js';

export const LEXICAL_VARIANTS: Record<string, TuningOverrides> = {
  'shipped defaults': {},
  'CJK bigrams off': { cjkBigrams: false },
  'CJK bigrams on': { cjkBigrams: true },
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', multiple: true },
      variant: { type: 'string', multiple: true },
      mode: { type: 'string', multiple: true },
      embedder: { type: 'string' },
    },
  });
  const dataDirs = values.data ?? [
    'bench/data/real-mcp-catalog/dev',
    'bench/data/real-mcp-catalog/heldout',
    'bench/data/cjk-requests',
    evalDataDir('metatool'),
    evalDataDir('apibank'),
  ];
  const modes = (values.mode ?? ['hybrid']) as SearchMode[];
  const variants = values.variant ?? Object.keys(LEXICAL_VARIANTS);
  const embedder = resolveEvalEmbedder({ spec: values.embedder });
  const names = dataDirs.map((dir) => dir.split('/').filter(Boolean).slice(-2).join('/'));
  const out = (line: string) => process.stdout.write(`${line}\n`);
  try {
    out(`| variant | mode | ${names.map((name) => `${name} R@5 | nDCG@10`).join(' | ')} |`);
    out(`|---|---|${names.map(() => '---|---').join('|')}|`);
    for (const variant of variants) {
      const tuning = LEXICAL_VARIANTS[variant];
      if (!tuning) throw new Error(`unknown variant ${variant}: ${Object.keys(LEXICAL_VARIANTS).join(', ')}`);
      for (const mode of modes) {
        const cells: string[] = [];
        for (const dataDir of dataDirs) {
          const report = await evaluateRetrieval({ dataDir, modes: [mode], embedder, tuning });
          const r = report[mode];
          cells.push(r ? `${r.recall5.toFixed(3)} | ${r.ndcg10.toFixed(3)}` : '– | –');
        }
        out(`| ${variant} | ${mode} | ${cells.join(' | ')} |`);
      }
    }
  } finally {
    await embedder.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`lexical-ablation: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
