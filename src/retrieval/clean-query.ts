import { STOP_WORDS } from './stop-words.js';
import { tokenize } from './tokenize.js';

/**
 * Politeness and request framing ("can you help me", "I would like to", "please tell me").
 * These phrases carry no information about which tool fits, yet their words ("help",
 * "like", "tell", "want", "need") do occur in some tool descriptions, so BM25 would reward
 * tools for matching the framing instead of the intent. Only the framing sense is removed:
 * "like" survives in "songs like this", "help" in "help articles".
 */
const FILLER_PHRASES: readonly RegExp[] = [
  /\b(?:can|could|would|will) you(?: please)?(?: kindly)?(?: help me)?(?: to)?\b/gi,
  /\b(?:please|pls|plz|kindly)\b/gi,
  /\b(?:help|assist) me(?: to| with)?\b/gi,
  /\bi(?:'d| would)? (?:like|love|want|need|wish|hope)(?: you)?(?: to)?\b/gi,
  /\bi(?:'m| am) (?:looking|trying|hoping|planning|going|wanting)(?: for| to)?\b/gi,
  /\b(?:tell|let|show|give) me(?: know)?(?: about)?\b/gi,
  /\bdo you (?:know|have)\b/gi,
  /\bis (?:it|there) (?:possible|a way)(?: to| for)?\b/gi,
  /\bthank(?:s| you)\b/gi,
];

/**
 * Literal values in a request — e-mail addresses, URLs' schemes, numbers, dates, times,
 * ids like `user3pass` or `A1234` — are arguments for the tool, not a description of it;
 * as search terms they only match by accident.
 */
export function stripLiteralValues(query: string): string {
  return query
    // `name@host.tld` tested per token: `\S+@\S+\.\w+` was quadratic in a long one (a 40 KB base64 paste: 12 s).
    .replace(/\S+/g, (token) => (token.indexOf('@', 1) > 0 && /.\.\w/.test(token.slice(token.indexOf('@', 1) + 1)) ? ' ' : token))
    .replace(/\b\w*\d\w*\b/g, ' ');
}

/** Removes request framing; keeps the words that say what is wanted. */
export function stripFillerPhrases(query: string): string {
  let text = query;
  for (const pattern of FILLER_PHRASES) text = text.replace(pattern, ' ');
  return text;
}

/**
 * The content terms of a request: framing phrases and function words removed, identifiers
 * split, lower case, duplicates kept once (BM25 already weights by term, and repeated
 * words in long multi-turn requests would otherwise dominate). When cleaning removes
 * everything (a request like "help me"), the plain tokens are returned instead so a
 * search never becomes empty by our own doing. `stopWords` are dropped too.
 */
export function cleanQuery(query: string, options: { dropLiterals?: boolean; stopWords?: ReadonlySet<string> } = {}): string[] {
  const text = options.dropLiterals === false ? query : stripLiteralValues(query);
  const stop = (word: string) => STOP_WORDS.has(word) || options.stopWords?.has(word) === true;
  const terms = unique(tokenize(stripFillerPhrases(text)).filter((word) => !stop(word)));
  return terms.length > 0 ? terms : unique(tokenize(query));
}

function unique(words: readonly string[]): string[] {
  return [...new Set(words)];
}
