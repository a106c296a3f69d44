/**
 * The few lines of a page that best answer a query, so `memory_search` shows why a page
 * matched without the model opening it. Scored by how many distinct query words a
 * window of lines contains; ties go to the earlier window.
 */
export interface Snippet {
  /** 1-based first line of the snippet. */
  line: number;
  text: string;
}

const WINDOW = 3;
const MAX_CHARS = 320;

export function bestSnippet(text: string, query: string): Snippet {
  const lines = text.split(/\r?\n/);
  const terms = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])];
  let bestLine = firstContentLine(lines);
  let bestScore = 0;
  for (let start = 0; start < lines.length; start++) {
    const window = lines.slice(start, start + WINDOW).join(' ').toLowerCase();
    if (!window.trim()) continue;
    // A prefix match lets "deploy" find "deployment" without a stemmer.
    const score = terms.filter((term) => window.includes(term.slice(0, Math.max(4, term.length - 2)))).length;
    if (score > bestScore) {
      bestScore = score;
      bestLine = start;
    }
  }
  const snippet = lines
    .slice(bestLine, bestLine + WINDOW)
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ');
  return { line: bestLine + 1, text: snippet.length > MAX_CHARS ? `${snippet.slice(0, MAX_CHARS - 1)}…` : snippet };
}

function firstContentLine(lines: string[]): number {
  const index = lines.findIndex((line) => line.trim() && !line.startsWith('---'));
  return index === -1 ? 0 : index;
}
