/**
 * Splits a name glued from words, like `themeparkhipster` or `keywordexplorer`, using the
 * words of the document's own description as the dictionary ("Find theme park waiting
 * times" → "theme park hipster"). Plugin and app names are often written this way; neither
 * FTS5 nor a word-vector embedder can see the words inside them otherwise. Only known
 * words of three or more letters are cut out; what is left stays as one piece.
 */
export function segmentGluedName(word: string, vocabulary: ReadonlySet<string>): string[] {
  const text = word.toLowerCase();
  if (text.length < 6 || !/^\p{Ll}+$/u.test(text) || vocabulary.has(text)) return [text];
  // best[i]: the segmentation of text[0, i) that covers the most characters with known words.
  const best: { covered: number; pieces: string[] }[] = [{ covered: 0, pieces: [] }];
  for (let end = 1; end <= text.length; end++) {
    let choice = { covered: best[end - 1].covered, pieces: appendLetter(best[end - 1].pieces, text[end - 1], best, end - 1) };
    for (let start = Math.max(0, end - 20); start <= end - 3; start++) {
      const piece = text.slice(start, end);
      if (!vocabulary.has(piece)) continue;
      const covered = best[start].covered + piece.length;
      if (covered > choice.covered || (covered === choice.covered && best[start].pieces.length + 1 < choice.pieces.length)) {
        choice = { covered, pieces: [...best[start].pieces, piece] };
      }
    }
    best[end] = choice;
  }
  const result = best[text.length];
  return result.covered >= 3 ? result.pieces : [text];
}

/** Extends the last piece with an uncovered letter, or starts a new unknown piece. */
function appendLetter(pieces: string[], letter: string, best: { covered: number; pieces: string[] }[], at: number): string[] {
  const previousCovered = at > 0 ? best[at].covered - best[at - 1].covered : 0;
  // The previous character was uncovered too: keep growing the unknown piece.
  if (pieces.length > 0 && previousCovered === 0 && at > 0) return [...pieces.slice(0, -1), pieces[pieces.length - 1] + letter];
  return [...pieces, letter];
}
