/**
 * The ablation behind the ranking defaults (bench/RETRIEVAL.md): each choice switched off
 * alone against the shipped defaults, plus the plain-RRF starting point, on every dataset.
 * `node dist/bench/retrieval-ablation.js [--data DIR]... [--cache FILE]` prints a markdown table.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { BenchTuning } from './ranking-experiments/experiment-tuning.js';
import type { Embedder } from '../src/model/embedder.js';
import { evaluateRetrieval } from './eval-retrieval.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { evalDataDir } from './test-models/test-model-files.js';

const EQUAL_WEIGHTS = { name: 1, title: 1, description: 1, args: 1, grp: 1, body: 1 };

export const ABLATIONS: Record<string, BenchTuning> = {
  'shipped defaults': {},
  'plain RRF start (no cleaning, equal fields, RRF)': {
    cleanQuery: false,
    cleanDenseQuery: false,
    dropLiterals: false,
    splitGluedNames: false,
    phrases: false,
    embedding: { includeArgs: false },
    fieldWeights: EQUAL_WEIGHTS,
    fusion: { method: 'rrf' },
    denseWeight: 1,
  },
  '− query cleaning (BM25 and dense)': { cleanQuery: false, cleanDenseQuery: false },
  '− dense query cleaning only': { cleanDenseQuery: false },
  '− literal-value stripping': { dropLiterals: false },
  '− adjacent-term phrases in BM25': { phrases: false },
  '− field weights (all 1)': { fieldWeights: EQUAL_WEIGHTS },
  'name weight 3 instead of 5': { fieldWeights: { name: 3 } },
  'args weight 1 instead of 0.5': { fieldWeights: { args: 1 } },
  '− glued-name splitting': { splitGluedNames: false },
  'fusion: RRF instead of score': { fusion: { method: 'rrf' } },
  '− dense scores for all BM25 candidates, depth 100': { denseScoresForBm25: false },
  '− dense scores for all BM25 candidates, depth 50': { denseScoresForBm25: false, candidateDepth: 50 },
  'fusion: min-max normalisation': { fusion: { normalization: 'minmax' } },
  'dense: raw cosine (no normalisation), weight 2': { denseNormalization: 'none', denseWeight: 2 },
  'dense weight 1 instead of 1.3': { denseWeight: 1 },
  '− argument text in the embedding': { embedding: { includeArgs: false } },
  '+ multi-part requests (4 parts, weight 0.3)': { parts: { maxParts: 4, weight: 0.3 } },
  '− multi-step ranking (steps off)': { steps: { maxSteps: 0 } },
  'steps: round-robin merge instead of bonus': { steps: { merge: 'interleave' } },
  'steps: value statements kept as steps': { steps: { skipStatements: false } },
  'steps: bonus 0.25 instead of 0.15': { steps: { bonus: 0.25 } },
  'steps: at most 4 steps instead of 6': { steps: { maxSteps: 4 } },
  'steps: ranked by their vectors only (no BM25 per step)': { steps: { lexical: false } },
  'steps: only confident steps (≥ 0.2 at rank 5)': { steps: { minConfidence: 0.2 } },
  '− group boost': { groupBoost: 0 },
  '+ server-centroid evidence 0.3': { serverEvidence: { weight: 0.3 } },
  '+ diversity (MMR λ 0.3, cos > 0.8)': { diversity: { lambda: 0.3, threshold: 0.8 } },
  '+ diversity, multi-step requests only': { diversity: { lambda: 0.3, threshold: 0.8, multiStepOnly: true } },
};

export async function ablateRetrieval(options: { dataDirs: readonly string[]; embedder: Embedder }): Promise<string> {
  const names = options.dataDirs.map((dir) => dir.split('/').filter(Boolean).pop() ?? dir);
  const header = `| choice | ${names.map((name) => `${name} R@5 | ${name} nDCG@10`).join(' | ')} |`;
  const rule = `|---|${names.map(() => '---|---').join('|')}|`;
  const rows: string[] = [];
  for (const [choice, tuning] of Object.entries(ABLATIONS)) {
    const cells: string[] = [];
    for (const dataDir of options.dataDirs) {
      const report = await evaluateRetrieval({ dataDir, modes: ['hybrid'], embedder: options.embedder, tuning });
      cells.push(report.hybrid ? `${report.hybrid.recall5.toFixed(3)} | ${report.hybrid.ndcg10.toFixed(3)}` : '– | –');
    }
    rows.push(`| ${choice} | ${cells.join(' | ')} |`);
  }
  return [header, rule, ...rows].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { data: { type: 'string', multiple: true }, cache: { type: 'string' }, embedder: { type: 'string' } },
  });
  const dataDirs = values.data ?? [evalDataDir('metatool'), evalDataDir('apibank')];
  const embedder = resolveEvalEmbedder({ spec: values.embedder, cacheDb: values.cache });
  try {
    process.stdout.write(`${await ablateRetrieval({ dataDirs, embedder })}\n`);
  } finally {
    await embedder.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`retrieval-ablation: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
