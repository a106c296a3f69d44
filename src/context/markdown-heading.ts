/** The text of a markdown file's first heading (any level) within its first 4 KB, if there is one. */
export function firstMarkdownHeading(markdown: string): string | undefined {
  return /^#{1,6}\s+(.+)$/m.exec(markdown.slice(0, 4096))?.[1].trim();
}
