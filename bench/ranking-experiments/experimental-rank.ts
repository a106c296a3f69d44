import type { EmbeddingModel } from '../../src/model/embedding-model.js';
import type { SqliteDatabase } from '../../src/storage/sqlite/sqlite-database.js';
import { cjkTerms } from '../../src/retrieval/cjk-bigrams.js';
import { cleanQuery } from '../../src/retrieval/clean-query.js';
import { embedAll } from '../../src/retrieval/embed-all.js';
import { FTS_COLUMNS } from '../../src/retrieval/field-weights.js';
import { filteredBm25 } from '../../src/retrieval/filtered-bm25.js';
import { ftsMatchExpression } from '../../src/retrieval/fts-match-expression.js';
import { fuseRankings, type Ranking } from '../../src/retrieval/fuse-rankings.js';
import { bm25Statements } from '../../src/retrieval/index-statements.js';
import { boostGroups, byScore, type RankingContext, type RankRequest, type RequestEvidence } from '../../src/retrieval/rank-request.js';
import { tokenize } from '../../src/retrieval/tokenize.js';
import { dotProduct, type ScoredRow, type VectorMatrix } from '../../src/retrieval/vector-matrix.js';
import { denseRanking } from './dense-confidence.js';
import type { ExperimentTuning } from './experiment-tuning.js';
import { mergeRankings } from './experimental-merge.js';
import type { FieldScoredRow } from './fusion-features.js';
import { learnedFusion } from './learned-fusion.js';
import { OTHER_LANGUAGE_STOP_WORDS } from './other-language-stop-words.js';
import { applyServerEvidence, namespaceCentroids } from './server-evidence.js';
import { splitRequest } from './split-request.js';
import { catalogTexts, WordNeighbours } from './word-neighbours.js';

/**
 * The ranking experiments of bench/RETRIEVAL.md through the index's ranking seam: the same
 * per-text fusion and step merge as the shipped `rankRequest` (src/retrieval/rank-request.ts),
 * with each experiment's branch where it was measured. `embedder` is needed for query expansion.
 */
export function experimentalRank(experiments: ExperimentTuning, embedder?: EmbeddingModel): RankRequest {
  const x = experiments;
  let neighbours: WordNeighbours | undefined;
  const stopWords = x.otherLanguageStopWords ? OTHER_LANGUAGE_STOP_WORDS : undefined;
  return async (gathered, context) => {
    const { tuning } = context;
    // Other-language function words change what BM25 and the embedder see: gather again without them.
    let evidence = stopWords ? await context.gather(gathered.texts, { stopWords }) : gathered;
    // Steps ranked by their vectors alone (BM25 only for the whole request).
    if (!x.steps.lexical) evidence = { ...evidence, lexical: evidence.lexical.map((hits, i) => (i === 0 ? hits : [])) };
    const parts = evidence.texts.map((text) => (x.parts.maxParts > 0 ? splitRequest(text, { maxParts: x.parts.maxParts }) : []));
    const partEvidence = parts.some((list) => list.length > 0) ? await context.gather(parts.flat(), { stopWords }) : undefined;
    const expanded: ScoredRow[][] = [];
    if (context.mode === 'hybrid' && x.expansion.perTerm > 0 && embedder) {
      neighbours ??= new WordNeighbours((words) => embedAll(embedder, words, { batchSize: 256 }));
      await neighbours.refresh(context.catalog(), () => catalogTexts(context.db));
      for (const text of evidence.texts) {
        expanded.push(context.bm25(await neighbours.expand(queryWords(text, context, stopWords), x.expansion), { phrases: false }));
      }
    }
    let offset = 0;
    const scored = evidence.texts.map((text, i) => {
      const own = { lexical: partEvidence?.lexical.slice(offset, offset + parts[i].length) ?? [], dense: partEvidence?.dense.slice(offset, offset + parts[i].length) ?? [] };
      offset += parts[i].length;
      const rankings = experimentRankings(evidence, i, own, expanded[i], x, context);
      if (rankings.length === 1) return new Map(rankings[0].hits.map((hit) => [hit.rowid, hit.score]));
      const lexical = evidence.lexical[i] && x.learned ? fieldBm25(queryWords(text, context, stopWords), context) : [];
      const fused = x.learned ? learnedFusion(lexical, evidence.dense[i] ?? [], x.learnedFusion.model, x.learnedFusion.observe) : fuseRankings(rankings, tuning.fusion);
      return withServerEvidence(boostGroups(fused, context), evidence.vectors[i], x, context);
    });
    const matrix = context.catalog().matrix;
    const steps = { ...x.steps, bonus: tuning.steps.bonus, bonusDepth: tuning.steps.bonusDepth };
    return mergeRankings(scored.map(byScore), context.limit, { steps, diversity: x.diversity }, matrix ? (a, b) => similarity(matrix, a, b) : undefined);
  };
}

/** Text i's rankings in the order the index fused them: BM25 (text, its parts), expansion, dense (text, its parts). */
function experimentRankings(
  evidence: RequestEvidence,
  i: number,
  parts: { lexical: readonly ScoredRow[][]; dense: readonly ScoredRow[][] },
  expanded: ScoredRow[] | undefined,
  x: ExperimentTuning,
  { tuning }: RankingContext,
): Ranking[] {
  const rankings: Ranking[] = [];
  const lexical = [evidence.lexical[i], ...parts.lexical];
  const dense = [evidence.dense[i], ...parts.dense];
  const weightOf = (j: number) => (j === 0 ? 1 : x.parts.weight);
  lexical.forEach((hits, j) => {
    if (hits) rankings.push({ hits, weight: tuning.bm25Weight * weightOf(j) });
  });
  if (expanded?.length) rankings.push({ hits: expanded, weight: x.expansion.weight });
  dense.forEach((hits, j) => {
    if (!hits) return;
    const weight = tuning.denseWeight * weightOf(j) * (i > 0 ? x.steps.denseWeight : 1);
    rankings.push(denseRanking(lexical[j] ?? [], hits, weight, x.denseConfidence, tuning.denseNormalization));
  });
  return rankings;
}

function withServerEvidence(scores: Map<number, number>, vector: Float32Array | undefined, x: ExperimentTuning, context: RankingContext): Map<number, number> {
  const { meta, matrix } = context.catalog();
  if (!matrix || !vector || x.serverEvidence.weight <= 0) return scores;
  const namespaceOf = (rowid: number) => meta.get(rowid)?.namespace;
  const centroids = namespaceCentroids(matrix, meta.keys(), namespaceOf, x.serverEvidence.minDocs);
  return applyServerEvidence(scores, namespaceOf, (namespace) => dotProduct(centroids.get(namespace), vector), x.serverEvidence);
}

/** Cosine of two stored documents (0 when either has no vector); moved here from VectorMatrix with the diversity experiment. */
function similarity(matrix: VectorMatrix, a: number, b: number): number {
  const dot = dotProduct(matrix.vectorOf(a), matrix.vectorOf(b) ?? new Float32Array(0)) ?? 0;
  return Number.isFinite(dot) ? dot : 0;
}

/** The request words as the index's BM25 sees them. */
function queryWords(text: string, { tuning }: RankingContext, stopWords: ReadonlySet<string> | undefined): string[] {
  return tuning.cleanQuery ? cleanQuery(text, { dropLiterals: tuning.dropLiterals, stopWords }) : [...new Set(tokenize(text))];
}

const fieldStatements = new WeakMap<SqliteDatabase, ReturnType<typeof bm25Statements<FieldScoredRow>>>();

/** The request's BM25 hits with the per-field BM25 scores learned fusion reads (fusion-features.ts). */
function fieldBm25(words: readonly string[], context: RankingContext): FieldScoredRow[] {
  const { tuning, db } = context;
  const match = ftsMatchExpression(tuning.cjkBigrams ? cjkTerms(words) : words, { phrases: tuning.phrases });
  if (!match) return [];
  let statements = fieldStatements.get(db);
  if (!statements) fieldStatements.set(db, (statements = bm25Statements<FieldScoredRow>(db, tuning.fieldWeights, `, ${fieldScores()}`)));
  return filteredBm25(statements, match, context.depth, context.scope, context.catalog().meta) as FieldScoredRow[];
}

/** BM25 of the name, description and args fields alone: bm25() with only that field weighted. */
function fieldScores(): string {
  const only = (field: string) => FTS_COLUMNS.map((column) => (column === field ? '1' : '0')).join(', ');
  return (['name', 'description', 'args'] as const).map((field) => `-bm25(retrieval_fts, ${only(field)}) AS ${field}`).join(', ');
}
