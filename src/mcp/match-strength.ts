import { cleanQuery } from '../retrieval/clean-query.js';
import { tokenize } from '../retrieval/tokenize.js';

/**
 * How much of a query a tool's own text covers, from 0 to 1: the share of the query's content
 * terms (framing and function words removed, as the index does) that occur in the tool's name,
 * title, description, argument text or server id, compared by a light stem ("files" = "file",
 * "translation" ~ "translate"). Han-script terms count by the share of their character bigrams
 * found in the text. The index's fused score cannot say this: it is relative to the best hit of
 * the same request, so the top hit of a hopeless request scores as high as a perfect one.
 */
export function matchStrength(query: string, toolText: string): number {
  const terms = cleanQuery(query);
  if (terms.length === 0) return 0;
  const words = tokenize(toolText);
  const stems = new Set(words.map(stem));
  const han = words.filter(isHan).join(' ');
  let covered = 0;
  for (const term of terms) {
    if (isHan(term)) covered += bigramShare(term, han);
    else if (stems.has(stem(term)) || [...stems].some((candidate) => sharesRoot(candidate, stem(term)))) covered += 1;
  }
  return covered / terms.length;
}

/** A light suffix stripper: enough to match "files"/"file", "writing"/"write", "charts"/"chart". */
function stem(word: string): string {
  if (word.length <= 3) return word;
  let base = word.replace(/ies$/, 'y').replace(/((?:s|x|z|ch|sh))es$/, '$1');
  if (base.length > 5) base = base.replace(/(?:ing|ed|ions?|ers?)$/, '');
  return base.replace(/([^s])s$/, '$1').replace(/(.{3,})e$/, '$1');
}

/** "translat" and "translation" share a root; short stems must match exactly. */
function sharesRoot(a: string, b: string): boolean {
  if (a.length < 5 || b.length < 5) return false;
  return a.startsWith(b) || b.startsWith(a);
}

function isHan(word: string): boolean {
  return /\p{Script=Han}/u.test(word);
}

function bigramShare(term: string, text: string): number {
  const chars = [...term];
  if (chars.length < 2) return text.includes(term) ? 1 : 0;
  let found = 0;
  for (let i = 0; i + 1 < chars.length; i++) if (text.includes(chars[i] + chars[i + 1])) found++;
  return found / (chars.length - 1);
}
