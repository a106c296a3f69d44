import type { Readable } from 'node:stream';

/**
 * Calls `handle` with each non-empty, trimmed line of `stream`: the newline-delimited framing the
 * CLI's stdio faces speak. Decoded as UTF-8 across chunks, so a character split between two
 * reads is never mangled.
 */
export function onLines(stream: Readable, handle: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) handle(line);
    }
  });
}
