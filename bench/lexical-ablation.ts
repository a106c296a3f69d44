/**
 * The lexical choices of issue 17 (CJK bigrams, short-description fallbacks, query expansion)
 * measured on every dataset, hybrid and BM25: `node dist/bench/lexical-ablation.js
 * [--data DIR]... [--variant NAME]... [--mode hybrid|bm25]...` prints a markdown table
 * (R@5 / nDCG@10 per dataset). Without --data: the real catalog's dev and held-out splits,
 * the CJK set, the Latin-script other-language set, MetaTool and API-Bank. `DIR#blank` is DIR with the descriptions of a fixed third
 * of its tools emptied (chosen by a hash of the tool id), the shape of catalogs whose servers
 * describe nothing.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { SearchMode } from '../src/retrieval/search-index.js';
import type { BenchTuning } from './ranking-experiments/experiment-tuning.js';
import { evaluateRetrieval } from './eval-retrieval.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { evalDataDir } from './test-models/test-model-files.js';

export const LEXICAL_VARIANTS: Record<string, BenchTuning> = {
  'shipped defaults': {},
  'CJK bigrams off': { cjkBigrams: false },
  'CJK bigrams on': { cjkBigrams: true },
  'other-language stop words on': { otherLanguageStopWords: true },
  'expansion: 2 words per unknown term, cos ≥ .55, weight .3': { expansion: { perTerm: 2 } },
  'expansion: 2 words per unknown term, cos ≥ .55, weight .15': { expansion: { perTerm: 2, weight: 0.15 } },
  'expansion: 2 words per unknown term, cos ≥ .55, weight .2': { expansion: { perTerm: 2, weight: 0.2 } },
  'expansion: 2 words per unknown term, cos ≥ .55, weight .25': { expansion: { perTerm: 2, weight: 0.25 } },
  'expansion: 1 word per unknown term, cos ≥ .55, weight .3': { expansion: { perTerm: 1 } },
  'expansion: 2 words per unknown term, cos ≥ .65, weight .3': { expansion: { perTerm: 2, minSimilarity: 0.65 } },
  'expansion: 2 words per term, cos ≥ .55, weight .3': { expansion: { perTerm: 2, unknownOnly: false } },
  'expansion: 3 words per term, cos ≥ .5, weight .2': { expansion: { perTerm: 3, unknownOnly: false, minSimilarity: 0.5, weight: 0.2 } },
  'expansion: 1 word per term, cos ≥ .6, weight .5': { expansion: { perTerm: 1, unknownOnly: false, minSimilarity: 0.6, weight: 0.5 } },
};

/** A copy of a dataset with every third tool's description emptied (same tools every run). */
export function blankedDataset(dir: string): string {
  const out = mkdtempSync(join(tmpdir(), 'plaited-blank-'));
  const lines = readFileSync(join(dir, 'tools.jsonl'), 'utf8').split('\n').filter((line) => line.trim() !== '');
  const blanked = lines.map((line) => {
    const tool = JSON.parse(line) as { id: string; description: string };
    const pick = createHash('sha1').update(tool.id).digest()[0] % 3 === 0;
    return JSON.stringify(pick ? { ...tool, description: '' } : tool);
  });
  writeFileSync(join(out, 'tools.jsonl'), `${blanked.join('\n')}\n`);
  copyFileSync(join(dir, 'queries.jsonl'), join(out, 'queries.jsonl'));
  return out;
}

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
    'bench/data/latin-requests',
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
          const dir = dataDir.endsWith('#blank') ? blankedDataset(dataDir.slice(0, -'#blank'.length)) : dataDir;
          const report = await evaluateRetrieval({ dataDir: dir, modes: [mode], embedder, tuning });
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
