/**
 * Chinese, Japanese and Korean text for FTS5. unicode61 keeps a run of CJK characters as one
 * token (a whole clause: "根据城市名称或者标准adcode查询指定城市的天气" becomes two tokens), so a
 * request shares no token with a description unless both are the same sentence. Each run is
 * cut into overlapping character bigrams instead ("天气预报" → "天气 气预 预报"), the scheme of
 * Lucene's CJKBigramFilter: most Chinese words are two characters, which FTS5's built-in
 * `trigram` tokenizer cannot match (its terms need three characters), and a bigram index needs
 * no dictionary. With adjacent-term phrases (fts-match-expression.ts) a longer shared run
 * also matches as a phrase, so "天安门" in both ranks above a lone "天安".
 */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\u3005]+/gu;
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function hasCjk(text: string): boolean {
  return CJK_CHAR.test(text);
}

/** The text with each CJK run replaced by its bigrams (a one-character run stays as it is), set apart by spaces. */
export function cjkBigrams(text: string): string {
  if (!hasCjk(text)) return text;
  return text.replace(CJK_RUN, (run) => ` ${bigramsOf(run).join(' ')} `);
}

/** Query terms with every CJK-bearing term replaced by its parts: "ip在哪个城市" → "ip", "在哪", "哪个", …. */
export function cjkTerms(terms: readonly string[]): string[] {
  if (!terms.some(hasCjk)) return [...terms];
  return [...new Set(terms.flatMap((term) => (hasCjk(term) ? cjkBigrams(term).split(/\s+/).filter(Boolean) : [term])))];
}

function bigramsOf(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  const grams: string[] = [];
  for (let i = 1; i < chars.length; i++) grams.push(chars[i - 1] + chars[i]);
  return grams;
}
