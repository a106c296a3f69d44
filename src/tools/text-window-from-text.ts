import type { TextWindow, TextWindowOptions } from './text-window.js';

/**
 * The window of `text` that starts at its first line (`text` already begins at the wanted
 * line, as a client's `fs/read_text_file` with `line` answers): at most `limit` lines and
 * `maxBytes` bytes. `complete` says `text` runs to the end of the file, so line counts are known.
 */
export function textWindowFromText(text: string, options: Omit<TextWindowOptions, 'signal'>, complete: boolean): TextWindow {
  if (text.slice(0, 8_192).includes('\u0000')) return { binary: true, lines: [], more: false, byteCapped: false };
  const all = splitLines(text);
  const lines: TextWindow['lines'] = [];
  let used = 0;
  let byteCapped = false;
  for (const line of all) {
    if (lines.length === options.limit) break;
    const bytes = Buffer.byteLength(line);
    if (lines.length > 0 && used + bytes > options.maxBytes) {
      byteCapped = true;
      break;
    }
    used += bytes;
    lines.push({ text: bytes > options.maxBytes ? Buffer.from(line).subarray(0, options.maxBytes).toString() : line, bytes });
  }
  const more = all.length > lines.length;
  return {
    binary: false,
    lines,
    more,
    byteCapped,
    // An empty answer past the first line says nothing of how many lines the file has.
    ...(complete && (all.length > 0 || options.offset === 1) ? { totalLines: options.offset - 1 + all.length } : {}),
  };
}

/** Lines without their terminators; a final newline does not start an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
