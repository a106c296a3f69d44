/**
 * `[[Page]]`, `[[Page|label]]` and `[[Page#Heading]]` links of the memory wiki, with
 * 1-based line numbers; links inside fenced code blocks and inline code are ignored.
 */
export interface WikiLink {
  /** The page part, as written (no label, no heading). */
  page: string;
  line: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function extractWikiLinks(markdown: string): WikiLink[] {
  const links: WikiLink[] = [];
  let fence: string | undefined;
  markdown.split(/\r?\n/).forEach((raw, index) => {
    const fenceMatch = FENCE.exec(raw);
    if (fence !== undefined) {
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = undefined;
      return;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      return;
    }
    const line = raw.replace(/(`+)[^`]*?\1/g, '');
    for (const match of line.matchAll(/\[\[([^\][\n]+?)\]\]/g)) {
      const page = match[1].split('|')[0].split('#')[0].trim();
      if (page) links.push({ page, line: index + 1 });
    }
  });
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
