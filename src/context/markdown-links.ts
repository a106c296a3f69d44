import { markdownProseLines } from './markdown-prose-lines.js';

/**
 * Extracts `[text](target)` links from markdown, with 1-based line numbers. Shared by
 * skills (references linked from a SKILL.md) and rules (files linked from AGENTS.md).
 * Images (`![alt](src)`) and anything inside fenced code blocks or inline code spans
 * are not links to follow, so they are skipped.
 */
export interface MarkdownLink {
  /** The link text, with inline markup left as written. */
  text: string;
  /** The target as written, without a `"title"` part or angle brackets. */
  target: string;
  /** 1-based line of the link's opening bracket. */
  line: number;
}

export function extractMarkdownLinks(markdown: string): MarkdownLink[] {
  return markdownProseLines(markdown).flatMap(({ text, line }) => linksInLine(text).map((link) => ({ ...link, line })));
}

function linksInLine(line: string): Array<{ text: string; target: string }> {
  const found: Array<{ text: string; target: string }> = [];
  let position = 0;
  while (position < line.length) {
    const open = line.indexOf('[', position);
    if (open === -1) break;
    const close = matchingClose(line, open);
    if (close === -1) break;
    if (line[close + 1] !== '(') {
      position = open + 1;
      continue;
    }
    const end = matchingClose(line, close + 1);
    if (end === -1) {
      position = open + 1;
      continue;
    }
    const isImage = open > 0 && line[open - 1] === '!' && (open < 2 || line[open - 2] !== '\\');
    const escaped = open > 0 && line[open - 1] === '\\';
    const target = cleanTarget(line.slice(close + 2, end));
    if (!isImage && !escaped && target) {
      found.push({ text: line.slice(open + 1, close).trim(), target });
    }
    position = end + 1;
  }
  return found;
}

/** Index of the `]` or `)` that closes the bracket at `open` (nested pairs and backslash escapes skipped), or -1. */
function matchingClose(line: string, open: number): number {
  const opener = line[open];
  const closer = opener === '[' ? ']' : ')';
  let depth = 0;
  for (let i = open; i < line.length; i++) {
    const char = line[i];
    if (char === '\\') {
      i++;
      continue;
    }
    if (char === opener) depth++;
    else if (char === closer && --depth === 0) return i;
  }
  return -1;
}

/** `<a b.md> "Title"` → `a b.md`; `path "Title"` → `path`. */
function cleanTarget(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed.startsWith('<')) {
    const end = trimmed.indexOf('>');
    return end === -1 ? '' : trimmed.slice(1, end).trim();
  }
  return trimmed.split(/\s+/)[0] ?? '';
}

/**
 * True for targets that name a local file: not a URL, not a mail link, not a bare
 * `#anchor`. The fragment and query are the caller's to strip with `localPath`.
 */
export function isLocalTarget(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#') && !target.startsWith('//');
}

/** The file part of a local target: `docs/a%20b.md#x` → `docs/a b.md`. */
export function localPath(target: string): string {
  const withoutFragment = target.split('#')[0].split('?')[0];
  try {
    return decodeURIComponent(withoutFragment);
  } catch {
    return withoutFragment;
  }
}
