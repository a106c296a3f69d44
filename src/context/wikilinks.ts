import { markdownProseLines } from './markdown-prose-lines.js';

/**
 * `[[Page]]`, `[[Page|label]]` and `[[Page#Heading]]` links of the memory wiki, with
 * 1-based line numbers; links inside fenced code blocks and inline code are ignored.
 */
export interface WikiLink {
  /** The page part, as written (no label, no heading). */
  page: string;
  line: number;
}

export function extractWikiLinks(markdown: string): WikiLink[] {
  const links: WikiLink[] = [];
  for (const { text, line } of markdownProseLines(markdown)) {
    for (const match of text.matchAll(/\[\[([^\][\n]+?)\]\]/g)) {
      const page = match[1].split('|')[0].split('#')[0].trim();
      if (page) links.push({ page, line });
    }
  }
  return links;
}

/** The key a page is found by: lowercase, spaces and underscores as hyphens, no `.md`. */
export function pageKey(name: string): string {
  return name
    .trim()
    .replace(/\.md$/i, '')
    .toLowerCase()
    .replace(/[\s_]+/g, '-');
}
