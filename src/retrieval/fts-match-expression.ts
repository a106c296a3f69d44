/**
 * An FTS5 MATCH expression that finds documents containing any of the terms. Each term is
 * quoted so FTS5 operators and punctuation in a request ("AND", "NEAR", "c++") are plain
 * words; OR rather than AND because a request rarely uses all of a tool's words, and BM25
 * ranks documents that match more terms higher anyway.
 */
export function ftsMatchExpression(terms: readonly string[], options: { phrases?: boolean } = {}): string | undefined {
  const clean = terms.filter((term) => term.trim() !== '').map((term) => term.replace(/"/g, '""'));
  const quoted = clean.map((term) => `"${term}"`);
  // Adjacent pairs as phrases: a document that has "air quality" together matches them once more.
  if (options.phrases) for (let i = 1; i < clean.length; i++) quoted.push(`"${clean[i - 1]} ${clean[i]}"`);
  return quoted.length > 0 ? quoted.join(' OR ') : undefined;
}
