import type { SqliteDatabase } from '../../src/storage/sqlite/sqlite-database.js';
import { hasCjk } from '../../src/retrieval/cjk-bigrams.js';
import type { IndexDocument } from '../../src/retrieval/search-index.js';
import { STOP_WORDS } from '../../src/retrieval/stop-words.js';
import { tokenize } from '../../src/retrieval/tokenize.js';
import { isZeroVector, normalize, VectorMatrix } from '../../src/retrieval/vector-matrix.js';

export interface ExpansionOptions {
  /** Neighbours taken per query term. */
  perTerm: number;
  /** Cosine similarity a neighbour needs. */
  minSimilarity: number;
  /** Expand only terms that no document contains (else every term). */
  unknownOnly: boolean;
}

type Embed = (texts: string[]) => Promise<Float32Array[]>;

/**
 * Query expansion from the embedder's nearest words, restricted to the catalog's own
 * vocabulary: a neighbour that no document contains cannot help BM25. Each distinct word of
 * the indexed documents is embedded once (on the first expansion after a change of the
 * catalog; words seen before keep their vector), and a query term's neighbours are the
 * vocabulary words nearest to its vector. The embedder is only reached through `embed`, so
 * this works for any model, but a word alone is a poor input for a sentence model.
 */
export class WordNeighbours {
  /** Vectors of catalog words, kept across catalog changes. */
  private readonly known = new Map<string, Float32Array | null>();
  /** Vectors of request words that are not catalog words; bounded, cleared when full. */
  private readonly asked = new Map<string, Float32Array | null>();
  private words: string[] = [];
  private matrix?: VectorMatrix;
  private version: unknown;
  private refreshing?: Promise<void>;

  constructor(private readonly embed: Embed) {}

  /**
   * Makes the vocabulary that of `version` (any value that changes with the catalog, compared
   * by identity); `texts` lists every document's text when it changed.
   */
  async refresh(version: unknown, texts: () => Iterable<string>): Promise<void> {
    if (version === this.version) return;
    if (this.refreshing) return this.refreshing;
    this.refreshing = this.load(texts())
      .then(() => {
        this.version = version;
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  /** Up to `perTerm` catalog words near each term, excluding the terms themselves and their inflections. */
  async expand(terms: readonly string[], options: ExpansionOptions): Promise<string[]> {
    const matrix = this.matrix;
    if (!matrix || options.perTerm <= 0) return [];
    const vocabulary = new Set(this.words);
    const targets = terms.filter((term) => /^\p{L}{3,}$/u.test(term) && !(options.unknownOnly && vocabulary.has(term)));
    if (targets.length === 0) return [];
    const vectors = await this.vectorsOf(targets, this.known.size > 0 ? this.asked : this.known);
    const out = new Set<string>();
    targets.forEach((_term, i) => {
      const vector = vectors[i];
      if (!vector) return;
      let taken = 0;
      for (const hit of matrix.nearest(vector, options.perTerm + 4)) {
        if (taken >= options.perTerm || hit.score < options.minSimilarity) break;
        const word = this.words[hit.rowid];
        if (terms.some((t) => sameStem(t, word))) continue;
        out.add(word);
        taken++;
      }
    });
    return [...out];
  }

  private async load(texts: Iterable<string>): Promise<void> {
    const words = new Set<string>();
    for (const text of texts) for (const word of tokenize(text)) if (/^\p{L}{3,}$/u.test(word) && !hasCjk(word) && !STOP_WORDS.has(word)) words.add(word);
    await this.vectorsOf([...words], this.known);
    this.words = [...words].filter((word) => this.known.get(word));
    const rows = this.words.map((word, rowid) => ({ rowid, vector: this.known.get(word) as Float32Array }));
    this.matrix = rows.length > 0 ? new VectorMatrix(rows[0].vector.length, rows) : undefined;
  }

  /** Unit vectors of words, embedding the ones not seen before; null for a word the embedder cannot read. */
  private async vectorsOf(words: readonly string[], store: Map<string, Float32Array | null>): Promise<(Float32Array | null)[]> {
    const missing = words.filter((word) => !this.known.has(word) && !this.asked.has(word));
    if (store === this.asked && this.asked.size + missing.length > 4_096) this.asked.clear();
    for (let i = 0; i < missing.length; i += 256) {
      const batch = missing.slice(i, i + 256);
      const vectors = await this.embed(batch);
      batch.forEach((word, j) => {
        const vector = vectors[j];
        store.set(word, vector && vector.length > 0 && !isZeroVector(vector) ? normalize(Float32Array.from(vector)) : null);
      });
    }
    return words.map((word) => this.known.get(word) ?? this.asked.get(word) ?? null);
  }
}

/** "file" and "files", "search" and "searching": a shared stem is no expansion. */
function sameStem(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length, 5);
  return a === b || (n >= 4 && a.slice(0, n) === b.slice(0, n));
}

/** The text of every document of an index file: the vocabulary's source. */
export function* catalogTexts(db: SqliteDatabase): Iterable<string> {
  for (const row of db.prepare<[], { json: string }>('SELECT json FROM retrieval_docs').iterate()) {
    yield Object.values((JSON.parse(row.json) as IndexDocument).fields).join(' ');
  }
}
