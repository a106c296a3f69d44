/**
 * Trains the learned fusion model (bench/ranking-experiments/learned-fusion.ts) on the PUBLIC sets only:
 * MetaTool and API-Bank, the odd query lines (1st, 3rd, …) of each. Every request is ranked
 * through the real hybrid index (steps off: one candidate list per request), each candidate's
 * features recorded (fusion-features.ts) and labelled by the gold tools; a linear pairwise
 * ranker (pairwise-ranker.ts) is fitted, written as JSON, and both fusions are then evaluated
 * (shipped defaults, steps on) on the training half, the other half and the whole of each set.
 *
 * `npx tsc -p tsconfig.json && node dist/bench/train-fusion.js [--out bench/ranking-experiments/learned-fusion-weights.json]
 * [--loss pairwise|listwise] [--negatives 30] [--l2 0.001] [--features a,b] [--fixed bm25=1,dense=1.3] [--cache FILE]`. Deterministic: same data, same embedder, same weights.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { Embedder } from '../src/model/embedder.js';
import { openBenchIndex } from './ranking-experiments/open-bench-index.js';
import { FUSION_FEATURES, type FusionCandidate } from './ranking-experiments/fusion-features.js';
import type { FusionModel } from './ranking-experiments/learned-fusion.js';
import type { BenchTuning } from './ranking-experiments/experiment-tuning.js';
import { openSqliteDatabase } from '../src/storage/sqlite/open-sqlite-database.js';
import { goldGroupsOf, loadDataset, toolDocument, type EvalDataset } from './retrieval-dataset.js';
import { meanMetrics, queryMetrics, type QueryMetrics } from './retrieval-metrics.js';
import { trainPairwiseRanker, type RankingExample } from './pairwise-ranker.js';
import { trainListwiseRanker } from './listwise-ranker.js';
import { resolveEvalEmbedder } from './retrieval-embedder.js';
import { evalDataDir } from './test-models/test-model-files.js';

/** The training half: odd query lines (index 0, 2, 4, …). */
export const inTrainingHalf = (index: number): boolean => index % 2 === 0;

async function withIndex<T>(dataset: EvalDataset, embedder: Embedder, tuning: BenchTuning, use: (search: (query: string) => Promise<string[]>, idOf: Map<number, string>) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'train-fusion-'));
  const path = join(dir, 'index.db');
  const index = await openBenchIndex({ path, embedder, tuning });
  try {
    const byNamespace = new Map<string, ReturnType<typeof toolDocument>[]>();
    for (const document of dataset.tools.map(toolDocument)) byNamespace.set(document.namespace, [...(byNamespace.get(document.namespace) ?? []), document]);
    for (const [namespace, documents] of byNamespace) await index.sync(namespace, documents);
    const db = openSqliteDatabase(path);
    const idOf = new Map(db.prepare<[], { rowid: number; id: string }>('SELECT rowid, id FROM retrieval_docs').all().map((row) => [row.rowid, row.id]));
    db.close();
    return await use(async (query) => (await index.search(query, { limit: 10 })).map((hit) => hit.id), idOf);
  } finally {
    index.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each training request's candidates, labelled; negatives limited to the `negatives` best by score fusion (0: all). */
async function collectExamples(dataset: EvalDataset, embedder: Embedder, negatives: number): Promise<RankingExample[]> {
  let recorded: readonly FusionCandidate[] = [];
  const tuning: BenchTuning = { fusion: { method: 'learned' }, learnedFusion: { observe: (candidates) => (recorded = candidates) }, steps: { maxSteps: 0 } };
  const bm25 = FUSION_FEATURES.indexOf('bm25');
  const dense = FUSION_FEATURES.indexOf('dense');
  return withIndex(dataset, embedder, tuning, async (search, idOf) => {
    const examples: RankingExample[] = [];
    for (const [index, query] of dataset.queries.entries()) {
      if (!inTrainingHalf(index)) continue;
      recorded = [];
      await search(query.query);
      const gold = new Set(goldGroupsOf(query).flat());
      const isGold = (candidate: FusionCandidate) => gold.has(idOf.get(candidate.rowid) ?? '');
      const baseline = (candidate: FusionCandidate) => candidate.features[bm25] + 1.3 * candidate.features[dense];
      const wrong = recorded.filter((candidate) => !isGold(candidate)).sort((a, b) => baseline(b) - baseline(a));
      examples.push({
        positives: recorded.filter(isGold).map((candidate) => candidate.features),
        negatives: (negatives > 0 ? wrong.slice(0, negatives) : wrong).map((candidate) => candidate.features),
      });
    }
    return examples;
  });
}

type Halves = Record<'train' | 'other' | 'whole', QueryMetrics>;

async function evaluateHalves(dataset: EvalDataset, embedder: Embedder, tuning: BenchTuning): Promise<Halves> {
  return withIndex(dataset, embedder, tuning, async (search) => {
    const train: QueryMetrics[] = [];
    const other: QueryMetrics[] = [];
    for (const [index, query] of dataset.queries.entries()) {
      (inTrainingHalf(index) ? train : other).push(queryMetrics(await search(query.query), goldGroupsOf(query)));
    }
    return { train: meanMetrics(train), other: meanMetrics(other), whole: meanMetrics([...train, ...other]) };
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: 'bench/ranking-experiments/learned-fusion-weights.json' },
      negatives: { type: 'string', default: '30' },
      l2: { type: 'string', default: '0.001' },
      cache: { type: 'string' },
      /** Only these features (comma-separated); the others get weight 0. */
      features: { type: 'string' },
      /** Features whose weight is fixed, not learned: `bm25=1,dense=1.3` (score fusion's). */
      fixed: { type: 'string' },
      /** `pairwise` (relevant vs each of the `negatives` best irrelevant) or `listwise` (softmax over them). */
      loss: { type: 'string', default: 'pairwise' },
    },
  });
  const used = values.features ? values.features.split(',') : [...FUSION_FEATURES];
  const unknown = used.filter((name) => !(FUSION_FEATURES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown features: ${unknown.join(', ')}`);
  const fixed = new Map((values.fixed ? values.fixed.split(',') : []).map((pair) => {
    const [name, weight] = pair.split('=');
    if (!(FUSION_FEATURES as readonly string[]).includes(name) || !Number.isFinite(Number(weight))) throw new Error(`--fixed: not name=weight: ${pair}`);
    return [FUSION_FEATURES.indexOf(name as (typeof FUSION_FEATURES)[number]), Number(weight)];
  }));
  const columns = FUSION_FEATURES.map((name, i) => (used.includes(name) && !fixed.has(i) ? i : -1)).filter((i) => i >= 0);
  const base = (features: Float64Array) => [...fixed].reduce((sum, [i, weight]) => sum + weight * features[i], 0);
  const negatives = Number(values.negatives);
  const l2 = Number(values.l2);
  const embedder = resolveEvalEmbedder({ cacheDb: values.cache });
  try {
    const datasets = [loadDataset(evalDataDir('metatool')), loadDataset(evalDataDir('apibank'))];
    const examples: RankingExample[] = [];
    for (const dataset of datasets) examples.push(...(await collectExamples(dataset, embedder, negatives)));
    const pick = (features: Float64Array) => Float64Array.from(columns, (i) => features[i]);
    const picked = examples.map(({ positives, negatives }) => ({
      positives: positives.map(pick),
      negatives: negatives.map(pick),
      positiveBase: positives.map(base),
      negativeBase: negatives.map(base),
    }));
    const train = values.loss === 'listwise' ? trainListwiseRanker : trainPairwiseRanker;
    const trained = train(picked, columns.length, { l2, iterations: 100 });
    const weights = FUSION_FEATURES.map((_, i) => fixed.get(i) ?? (columns.includes(i) ? trained[columns.indexOf(i)] : 0));
    const model: FusionModel & { trainedBy: string } = {
      trainedBy: `node dist/bench/train-fusion.js --loss ${values.loss} --negatives ${negatives} --l2 ${l2}${values.features ? ` --features ${values.features}` : ''}${values.fixed ? ` --fixed ${values.fixed}` : ''} (MetaTool + API-Bank, odd query lines, GloVe test embedder)`,
      features: [...FUSION_FEATURES],
      weights: weights.map((weight) => Number(weight.toFixed(4))),
      bias: 0,
    };
    writeFileSync(values.out, `${JSON.stringify(model, null, 2)}\n`);
    process.stdout.write(`${FUSION_FEATURES.map((name, i) => `${name} ${model.weights[i]}`).join('\n')}\nwritten to ${values.out}\n\n`);
    const learned: BenchTuning = { fusion: { method: 'learned' }, learnedFusion: { model } };
    process.stdout.write('| set | fusion | train half R@5 / nDCG@10 | other half | whole |\n|---|---|---|---|---|\n');
    for (const dataset of datasets) {
      for (const [name, tuning] of [['score (shipped)', {}], ['learned', learned]] as const) {
        const halves = await evaluateHalves(dataset, embedder, tuning);
        const cell = (metrics: QueryMetrics) => `${metrics.recall5.toFixed(3)} / ${metrics.ndcg10.toFixed(3)}`;
        process.stdout.write(`| ${dataset.name} | ${name} | ${cell(halves.train)} | ${cell(halves.other)} | ${cell(halves.whole)} |\n`);
      }
    }
  } finally {
    await embedder.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`train-fusion: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
