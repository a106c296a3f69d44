import type { IndexDocument } from './search-index.js';
import type { FtsColumn } from './field-weights.js';
import { cjkBigrams } from './cjk-bigrams.js';
import { segmentGluedName } from './segment-glued-name.js';
import { splitIdentifier } from './split-identifier.js';
import { tokenize } from './tokenize.js';

export interface DocumentTextOptions {
  /** Split names glued from words (`themeparkhipster`) with the document's own words. */
  splitGluedNames?: boolean;
  /** Index CJK runs as character bigrams (see cjk-bigrams.ts). Only FTS5 text; the embedder sees the original. */
  cjkBigrams?: boolean;
}

/**
 * The words of a name: identifiers split, and glued words cut apart when the document's
 * other fields contain them.
 */
export function nameWords(document: IndexDocument, options: DocumentTextOptions = {}): string {
  const split = splitIdentifier(document.fields.name);
  if (options.splitGluedNames === false) return split;
  const { title, description, args, body } = document.fields;
  const vocabulary = new Set(tokenize([title, description, args, body].filter(Boolean).join(' ')).filter((word) => word.length >= 3));
  return split
    .split(/\s+/)
    .flatMap((word) => (word.length >= 6 && /^\p{L}+$/u.test(word) ? segmentGluedName(word, vocabulary) : [word]))
    .join(' ');
}

/**
 * What FTS5 indexes for a document, one text per column. Identifiers are split in every
 * field so `createIssue` in a request meets `create_issue` in a name; the name also keeps
 * its joined form ("createissue") so a request that spells the name as one word matches.
 */
export function ftsColumns(document: IndexDocument, options: DocumentTextOptions = {}): Record<FtsColumn, string> {
  const { fields } = document;
  const splitName = nameWords(document, options);
  const joined = fields.name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const name = joined && /\s/.test(splitName.trim()) ? `${splitName} ${joined}` : splitName;
  const prepare = (text: string) => (options.cjkBigrams ? cjkBigrams(splitIdentifier(text)) : splitIdentifier(text));
  return {
    name: options.cjkBigrams ? cjkBigrams(name) : name,
    title: prepare(fields.title ?? ''),
    description: prepare(fields.description ?? ''),
    args: prepare(fields.args ?? ''),
    grp: prepare(fields.group ?? ''),
    body: prepare(fields.body ?? ''),
  };
}

/**
 * The text the embedder sees for a document. Word-vector and small sentence models
 * average over their input, so the most specific text goes first and the rest is capped:
 * a long description or schema must not wash out the name. The embedding model's context
 * is 512 word pieces; `maxWords` keeps well below it.
 */
export function embeddingText(
  document: IndexDocument,
  options: DocumentTextOptions & EmbeddingTextOptions = {},
): string {
  const maxWords = options.maxWords ?? 160;
  const { fields } = document;
  const parts = [nameWords(document, options), fields.title, fields.description, fields.body];
  if (options.includeArgs) parts.push(splitIdentifier(fields.args ?? ''));
  const text = parts
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .map((part) => part.trim())
    .join('. ');
  return capWords(splitIdentifier(text), maxWords);
}

export interface EmbeddingTextOptions {
  maxWords?: number;
  includeArgs?: boolean;
}

/** The first `maxWords` whitespace-separated words. */
export function capWords(text: string, maxWords: number): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.length > maxWords ? words.slice(0, maxWords).join(' ') : words.join(' ');
}
