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
  // A prefix match lets "deploy" find "deployment" without a stemmer.
  const stems = terms.map((term) => term.slice(0, Math.max(4, term.length - 2)));
  const hits = (text: string): number => stems.filter((stem) => text.includes(stem)).length;
  let bestLine = firstContentLine(lines);
  let bestScore = 0;
  for (let start = 0; start < lines.length; start++) {
    const window = lines.slice(start, start + WINDOW).join(' ').toLowerCase();
    if (!window.trim()) continue;
    const score = hits(window);
    if (score > bestScore) {
      bestScore = score;
      bestLine = start;
    }
  }
  // Start at the first body line of the window that matches, not at a heading or blank above it.
  const end = Math.min(lines.length, bestLine + WINDOW);
  const restMatches = (from: number): boolean => lines.slice(from, end).some((line) => hits(line.toLowerCase()) > 0);
  while (bestScore > 0 && bestLine < end - 1 && restMatches(bestLine + 1)) {
    const line = lines[bestLine];
    if (line.trim() && !line.startsWith('#') && hits(line.toLowerCase()) > 0) break;
    bestLine++;
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
