import { describe, expect, it } from 'vitest';
import { extractMarkdownLinks, isLocalTarget, localPath } from '../../src/context/markdown-links.js';

describe('extractMarkdownLinks', () => {
  it('finds links with their 1-based line numbers', () => {
    const links = extractMarkdownLinks('# Title\n\nSee [the guide](docs/guide.md) and [API](<docs/api ref.md> "API").\nNext [x](y.md)');
    expect(links).toEqual([
      { text: 'the guide', target: 'docs/guide.md', line: 3 },
      { text: 'API', target: 'docs/api ref.md', line: 3 },
      { text: 'x', target: 'y.md', line: 4 },
    ]);
  });

  it('skips images, fenced code, inline code and escaped brackets', () => {
    const markdown = [
      '![diagram](img.png)',
      '```md',
      '[in fence](fenced.md)',
      '```',
      '~~~',
      '[in tilde fence](tilde.md)',
      '~~~',
      'Use `[not](code.md)` literally; \\[escaped](esc.md)',
      '[real](real.md)',
    ].join('\n');
    expect(extractMarkdownLinks(markdown)).toEqual([{ text: 'real', target: 'real.md', line: 9 }]);
  });

  it('keeps nested brackets in the text and balanced parentheses in the target', () => {
    expect(extractMarkdownLinks('[a [b] c](docs/a_(b).md)')).toEqual([{ text: 'a [b] c', target: 'docs/a_(b).md', line: 1 }]);
  });

  it('tells local targets from URLs and anchors, and strips fragments', () => {
    expect(isLocalTarget('docs/a.md')).toBe(true);
    expect(isLocalTarget('https://example.com')).toBe(false);
    expect(isLocalTarget('mailto:a@b.c')).toBe(false);
    expect(isLocalTarget('#section')).toBe(false);
    expect(localPath('docs/a%20b.md#part')).toBe('docs/a b.md');
  });
});
