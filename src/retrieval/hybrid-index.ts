import { openSqliteDatabase } from '../storage/sqlite/open-sqlite-database.js';
import type { SqliteDatabase } from '../storage/sqlite/sqlite-database.js';
import type { EmbeddingModel } from '../model/embedding-model.js';
import type { IndexDocument, SearchHit, SearchIndex, SearchMode, SearchOptions, SyncReport } from './search-index.js';
import { cleanQuery } from './clean-query.js';
import { cjkTerms } from './cjk-bigrams.js';
import { contentHash } from './content-hash.js';
import { loadCatalogSnapshot, type CatalogSnapshot, type RowScope } from './catalog-snapshot.js';
import { diffDocuments, type HashedDocument } from './diff-documents.js';
import { embeddingText, ftsColumns } from './document-text.js';
import { FTS_COLUMNS } from './field-weights.js';
import { migrateIndex } from './index-schema.js';
import { prepareStatements, type IndexStatements } from './index-statements.js';
import { embedAll } from './embed-all.js';
import { ITEMS_PER_TURN, yieldToLoop } from './yield-to-loop.js';

import { filteredBm25 } from './filtered-bm25.js';
import { denseHits } from './dense-hits.js';
import { ftsMatchExpression } from './fts-match-expression.js';
import { abortedSearch, RetrievalError } from './retrieval-error.js';
import { splitSteps } from './split-steps.js';
import { rankRequest, type RankingContext, type RankRequest, type RequestEvidence } from './rank-request.js';
import { indexRecipe, resolveTuning, type RetrievalTuning, type TuningOverrides } from './retrieval-tuning.js';

import { tokenize } from './tokenize.js';
import { normalize, vectorToBlob, type ScoredRow } from './vector-matrix.js';
import { validDocuments } from './valid-documents.js';

/** Rows written per transaction by a sync (see applyInSlices). */
const WRITES_PER_TRANSACTION = 250;

export interface HybridIndexOptions {
  /** An SQLite file (created when missing) or ':memory:'. */
  path: string;
  /**
   * Without one the index is BM25 only; `mode: 'dense'` then fails with `NO_EMBEDDER`. It may load
   * lazily: when its first `dimensions()` call fails (offline, a bad model file) the index goes on
   * as BM25 only and says so once through `onEmbedderUnavailable`.
   */
  embedder?: EmbeddingModel;
  /** Called once, with the cause, when the embedder turns out not to load. */
  onEmbedderUnavailable?: (cause: unknown) => void;
  /** Texts per `embed` call when (re)indexing. */
  embedBatchSize?: number;
  /** Ranking choices; the defaults are what bench/RETRIEVAL.md measured best. */
  tuning?: TuningOverrides;
  /** The final ranking of a request from the evidence gathered for it (default: the shipped `rankRequest`). */
  rank?: RankRequest;
}

export interface HybridIndex extends SearchIndex {
  readonly path: string;
  /** Whether dense and hybrid search have an embedder behind them (false once it failed to load). */
  readonly hasEmbedder: boolean;
  readonly tuning: RetrievalTuning;
  /** Documents in the index, optionally in one namespace. */
  count(namespace?: string): number;
}

interface PreparedWrite extends HashedDocument {
  /** The document as stored, and its full-text columns: made before the write transaction. */
  json: string;
  fts: ReturnType<typeof ftsColumns>;
  embedHash: string | null;
  vector: Uint8Array | null;
  /** The vector to compute, when it is not reused. */
  embedText?: string;
}

export async function openHybridIndex(options: HybridIndexOptions): Promise<HybridIndex> {
  const openFailed = (cause: unknown) =>
    new RetrievalError('INDEX_OPEN_FAILED', `cannot open the index at ${options.path}`, { context: { path: options.path }, cause });
  let db: SqliteDatabase;
  try {
    db = openSqliteDatabase(options.path);
  } catch (cause) {
    throw openFailed(cause);
  }
  try {
    return new SqliteHybridIndex(db, options);
  } catch (cause) {
    db.close();
    throw RetrievalError.isInstance(cause) ? cause : openFailed(cause);
  }
}

class SqliteHybridIndex implements HybridIndex {
  readonly path: string;
  readonly tuning: RetrievalTuning;
  private readonly db: SqliteDatabase;
  private embedder?: EmbeddingModel;
  /** The embedder's first load, once: undefined when it failed (the index is BM25 only from then on). */
  private embedderLoad?: Promise<EmbeddingModel | undefined>;
  private readonly onEmbedderUnavailable?: (cause: unknown) => void;
  /** Learnt from the embedder on first use (it loads its model lazily) or from stored vectors. */
  private dimensions?: number;
  private readonly batchSize: number;
  private snapshot?: CatalogSnapshot;
  private dataVersion = -1;
  private writes: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Counts removeNamespace calls, so a sync that was embedding meanwhile does not resurrect the namespace. */
  private readonly removals = new Map<string, number>();
  private readonly statements: IndexStatements;
  private readonly rank: RankRequest;

  constructor(db: SqliteDatabase, options: HybridIndexOptions) {
    this.db = db;
    this.path = options.path;
    this.embedder = options.embedder;
    this.onEmbedderUnavailable = options.onEmbedderUnavailable;
    this.batchSize = options.embedBatchSize ?? 64;
    this.tuning = resolveTuning(options.tuning);
    this.rank = options.rank ?? rankRequest;
    if (options.path !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrateIndex(db, {
      // Documents indexed with another text recipe are rewritten by the next sync.
      recipe: indexRecipe(this.tuning),
      embedderKey: this.embedder?.modelId,
    });
    this.statements = prepareStatements(db, this.tuning.fieldWeights);
  }

  get hasEmbedder(): boolean {
    return this.embedder !== undefined;
  }

  sync(namespace: string, documents: readonly IndexDocument[]): Promise<SyncReport> {
    const generation = this.removals.get(namespace) ?? 0;
    return this.serialize(async () => {
      const wanted = validDocuments(documents.map((document) => ({ ...document, namespace })));
      const existing = new Map(this.statements.existing.all(namespace).map((row) => [row.id, row]));
      const { report, changed } = diffDocuments(wanted, existing, { needsVector: !!this.embedder });
      // Ids that were in the namespace and are no longer wanted; an id may also have moved here.
      const removed = [...existing.values()].map((row) => row.rowid);
      report.removed = removed.length;
      const writes = await this.prepareWrites(changed);
      // The namespace was removed after this sync was asked for (a server went away): stay removed.
      if ((this.removals.get(namespace) ?? 0) !== generation) return { added: 0, updated: 0, removed: 0, unchanged: 0 };
      const current = () => (this.removals.get(namespace) ?? 0) === generation;
      if ((changed.length > 0 || removed.length > 0) && !(await this.applyInSlices(writes, removed, current))) return { added: 0, updated: 0, removed: 0, unchanged: 0 };
      return report;
    });
  }

  upsert(documents: readonly IndexDocument[]): Promise<SyncReport> {
    return this.serialize(async () => {
      const wanted = validDocuments(documents);
      const existing = new Map(
        this.statements.byIds.all(JSON.stringify(wanted.map((document) => document.id))).map((row) => [row.id, row]),
      );
      const { report, changed } = diffDocuments(wanted, existing, { needsVector: !!this.embedder });
      const writes = await this.prepareWrites(changed);
      if (writes.length > 0) this.applyWrites(writes, []);
      return report;
    });
  }

  remove(ids: readonly string[]): void {
    this.assertOpen();
    const rowids = ids.map((id) => this.statements.rowidOf.get(id)?.rowid).filter((rowid) => rowid !== undefined);
    if (rowids.length > 0) this.applyWrites([], rowids);
  }

  removeNamespace(namespace: string): void {
    this.assertOpen();
    this.removals.set(namespace, (this.removals.get(namespace) ?? 0) + 1);
    const rowids = this.statements.rowidsOfNamespace.all(namespace).map((row) => row.rowid);
    if (rowids.length > 0) this.applyWrites([], rowids);
  }

  get(id: string): IndexDocument | undefined {
    this.assertOpen();
    const row = this.statements.get.get(id);
    return row ? (JSON.parse(row.json) as IndexDocument) : undefined;
  }

  count(namespace?: string): number {
    this.assertOpen();
    return (namespace === undefined ? this.statements.count.get() : this.statements.countNamespace.get(namespace))?.n ?? 0;
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    this.assertOpen();
    const limit = options.limit ?? 10;
    const mode = options.mode ?? 'hybrid';
    if (mode === 'dense' && !(await this.loadedEmbedder())) {
      throw new RetrievalError('NO_EMBEDDER', 'dense search needs an embedder; this index is BM25 only', {
        context: { path: this.path },
      });
    }
    if (limit <= 0 || query.trim() === '') return [];
    const depth = Math.max(limit, this.tuning.candidateDepth);
    const scope: RowScope = {
      kinds: options.kinds ? new Set(options.kinds) : undefined,
      namespaces: options.namespaces ? new Set(options.namespaces) : undefined,
    };
    // Multi-step requests: each clause-level step is ranked too (split-steps.ts), all texts
    // embedded in one call, and merged by the ranking (rank-request.ts).
    const steps = this.tuning.steps.maxSteps > 0 ? splitSteps(query, this.tuning.steps) : [];
    const context = this.rankingContext(mode, limit, depth, scope, options.signal);
    const top = await this.rank(await context.gather([query, ...steps]), context);
    const json = new Map(
      this.statements.jsonByRowids.all(JSON.stringify(top.map(([rowid]) => rowid))).map((row) => [row.rowid, row.json]),
    );
    return top.flatMap(([rowid, score]) => {
      const text = json.get(rowid);
      if (text === undefined) return [];
      const document = JSON.parse(text) as IndexDocument;
      return [{ id: document.id, score, document }];
    });
  }

  private rankingContext(mode: SearchMode, limit: number, depth: number, scope: RowScope, signal?: AbortSignal): RankingContext {
    return {
      tuning: this.tuning,
      mode,
      limit,
      depth,
      scope,
      db: this.db,
      catalog: () => this.catalog(),
      bm25: (terms, { phrases }) => this.bm25Terms(terms, depth, scope, phrases),
      gather: (texts, { stopWords } = {}) => this.gather(texts, { mode, depth, scope, signal, stopWords }),
    };
  }

  /** BM25 and dense hits of each text, all texts embedded in one call. */
  private async gather(
    texts: readonly string[],
    options: { mode: SearchMode; depth: number; scope: RowScope; signal?: AbortSignal; stopWords?: ReadonlySet<string> },
  ): Promise<RequestEvidence> {
    const { mode, depth, scope, signal, stopWords } = options;
    // The embedder runs off the main thread (node-llama-cpp's native workers, or a remote
    // service): start it first, so the synchronous BM25 queries below run meanwhile.
    const embedding = mode !== 'bm25' && this.embedder ? this.embedQueries(texts, signal, stopWords) : undefined;
    embedding?.catch(() => undefined); // awaited below; a throwing BM25 query must not leave it unhandled
    const lexical = mode === 'dense' ? [] : texts.map((text) => this.bm25(text, depth, scope, stopWords));
    let dense: ScoredRow[][] = [];
    // None when the embedder is absent, or failed to load just now (the index is BM25 only from then on).
    const vectors = (await embedding) ?? [];
    if (vectors.length > 0) {
      // BM25's candidates get their exact dense score too, even when outside the dense top list.
      const also = this.tuning.denseScoresForBm25 ? lexical.map((hits) => hits.map((hit) => hit.rowid)) : [];
      dense = denseHits(this.catalog(), vectors, depth, { ...scope, also });
    }
    if (signal?.aborted) throw abortedSearch(signal);
    return { texts, lexical, dense, vectors };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private queryWords(query: string, stopWords?: ReadonlySet<string>): string[] {
    const { dropLiterals } = this.tuning;
    return this.tuning.cleanQuery ? cleanQuery(query, { dropLiterals, stopWords }) : [...new Set(tokenize(query))];
  }

  private bm25(query: string, depth: number, scope: RowScope, stopWords?: ReadonlySet<string>): ScoredRow[] {
    const words = this.queryWords(query, stopWords);
    return this.bm25Terms(this.tuning.cjkBigrams ? cjkTerms(words) : words, depth, scope, this.tuning.phrases);
  }

  private bm25Terms(terms: readonly string[], depth: number, scope: RowScope, phrases: boolean): ScoredRow[] {
    const match = ftsMatchExpression(terms, { phrases });
    if (!match) return [];
    return filteredBm25(this.statements, match, depth, scope, this.catalog().meta);
  }

  /** The requests' vectors, in one embedding call, after the same cleaning as BM25's. */
  private embedQueries(texts: readonly string[], signal?: AbortSignal, stopWords?: ReadonlySet<string>): Promise<Float32Array[]> {
    const { cleanDenseQuery, dropLiterals } = this.tuning;
    return this.embed(
      texts.map((text) => (cleanDenseQuery ? cleanQuery(text, { dropLiterals, stopWords }).join(' ') : text)),
      signal,
    );
  }

  /** Kinds, namespaces and vectors of every document, reloaded after any write. */
  private catalog(): CatalogSnapshot {
    const version = this.statements.dataVersion.get()?.data_version ?? 0;
    if (this.snapshot && version === this.dataVersion) return this.snapshot;
    this.snapshot = loadCatalogSnapshot(this.statements.catalog.iterate(), { withVectors: !!this.embedder, dimensions: this.dimensions });
    this.dataVersion = version;
    return this.snapshot;
  }

  /** Hashes, reused vectors (same text embedded before) and new vectors for changed documents. */
  private async prepareWrites(changed: readonly HashedDocument[]): Promise<PreparedWrite[]> {
    // In slices with the event loop turning between them: a catalog of thousands of tools must
    // not hold up every other request (the row's JSON and FTS text are made here, not in the transaction).
    const writes: PreparedWrite[] = [];
    for (const [index, { document, hash }] of changed.entries()) {
      if (index > 0 && index % ITEMS_PER_TURN === 0) await yieldToLoop();
      const row = { document, hash, json: JSON.stringify(document), fts: ftsColumns(document, this.tuning) };
      if (!this.embedder) writes.push({ ...row, embedHash: null, vector: null });
      else {
        const text = embeddingText(document, { ...this.tuning.embedding, splitGluedNames: this.tuning.splitGluedNames });
        writes.push({ ...row, embedHash: contentHash(text), vector: null, embedText: text });
      }
    }
    if (!this.embedder || writes.length === 0) return writes;
    const reusable = new Map(
      this.statements.vectorsByEmbedHash
        .all(JSON.stringify(writes.map((write) => write.embedHash)))
        .map((row) => [row.embed_hash, row.vector]),
    );
    const missing = new Map<string, string>();
    for (const write of writes) {
      const vector = reusable.get(write.embedHash ?? '');
      if (vector) write.vector = vector;
      else missing.set(write.embedHash ?? '', write.embedText ?? '');
    }
    const embedder = missing.size > 0 ? await this.loadedEmbedder() : undefined;
    // Without a loaded embedder those documents are stored without vectors (the next start with one adds them).
    if (embedder) {
      const hashes = [...missing.keys()];
      const vectors = await embedAll(embedder, [...missing.values()], { batchSize: this.batchSize });
      const computed = new Map(hashes.map((hash, index) => [hash, vectorToBlob(this.checkDimensions(vectors[index]))]));
      for (const write of writes) write.vector ??= computed.get(write.embedHash ?? '') ?? null;
    }
    return writes;
  }

  private checkDimensions(vector: Float32Array): Float32Array {
    if (vector.length !== 0 && vector.length !== this.dimensions) {
      throw new RetrievalError('EMBEDDING_DIMENSION_MISMATCH', `the embedder returned ${vector.length} dimensions, expected ${this.dimensions}`, {
        context: { path: this.path, modelId: this.embedder?.modelId },
      });
    }
    return this.unitVector(vector);
  }

  /** The vector scaled to length 1; an empty one (nothing to embed) stands for a zero vector. */
  private unitVector(vector: Float32Array): Float32Array {
    return vector.length === 0 ? new Float32Array(this.dimensions ?? 0) : normalize(Float32Array.from(vector));
  }

  /**
   * A sync's changes in transactions of WRITES_PER_TRANSACTION rows, the event loop turning
   * between them (3,000 rows in one transaction held the loop ~0.6 s). A search meanwhile may
   * see part of the new catalog, each document whole. False when `current` turned false (the
   * namespace was removed meanwhile): the rest is not written.
   */
  private async applyInSlices(writes: readonly PreparedWrite[], removedRowids: readonly number[], current: () => boolean): Promise<boolean> {
    for (let start = 0; start === 0 || start < writes.length; start += WRITES_PER_TRANSACTION) {
      if (start > 0) {
        await yieldToLoop();
        if (!current()) return false;
      }
      this.applyWrites(writes.slice(start, start + WRITES_PER_TRANSACTION), start === 0 ? removedRowids : []);
    }
    return true;
  }

  /** Changes in one transaction. */
  private applyWrites(writes: readonly PreparedWrite[], removedRowids: readonly number[]): void {
    this.assertOpen();
    const s = this.statements;
    this.db.transaction(() => {
      for (const rowid of removedRowids) {
        s.deleteFts.run(rowid);
        s.deleteDoc.run(rowid);
      }
      for (const write of writes) {
        const { document } = write;
        const row = s.upsert.get(document.id, document.kind, document.namespace, write.hash, write.embedHash, write.vector, write.json);
        if (!row) continue;
        const columns = write.fts;
        s.deleteFts.run(row.rowid);
        s.insertFts.run(row.rowid, ...FTS_COLUMNS.map((column) => columns[column]));
      }
    })();
    this.snapshot = undefined;
  }

  private async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (signal?.aborted) throw abortedSearch(signal);
    const embedder = await this.loadedEmbedder();
    if (!embedder) return [];
    const vectors = await embedAll(embedder, texts, { batchSize: this.batchSize, signal });
    return vectors.map((vector) => this.unitVector(vector));
  }

  /** The embedder after its first load; on a failed load the index drops it for good and says why once. */
  private loadedEmbedder(): Promise<EmbeddingModel | undefined> {
    const embedder = this.embedder;
    if (!embedder) return Promise.resolve(undefined);
    this.embedderLoad ??= embedder.dimensions().then(
      (dimensions) => {
        this.dimensions ??= dimensions;
        return embedder;
      },
      (cause: unknown) => {
        this.embedder = undefined;
        this.snapshot = undefined;
        this.onEmbedderUnavailable?.(cause);
        return undefined;
      },
    );
    return this.embedderLoad;
  }

  /** Writes run one after another so two syncs never interleave their diffs. */
  private serialize<T>(task: () => Promise<T>): Promise<T> {
    this.assertOpen();
    const run = this.writes.then(task, task);
    this.writes = run.catch(() => undefined);
    return run;
  }

  private assertOpen(): void {
    if (this.closed) throw new RetrievalError('INDEX_CLOSED', 'the index is closed', { context: { path: this.path } });
  }
}
