import { splitIdentifier } from './split-identifier.js';

/**
 * Lower-case word tokens of a text, identifiers split. Used for query cleaning and for the
 * length statistics of field weighting; FTS5 does its own tokenizing (unicode61 + porter)
 * over text prepared with the same `splitIdentifier`.
 */
export function tokenize(text: string): string[] {
  const words = splitIdentifier(text).toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu);
  return words ?? [];
}
