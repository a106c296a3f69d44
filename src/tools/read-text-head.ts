import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

/** The beginning of a text file, read without reading the rest. */
export interface TextHead {
  /** At most `maxBytes` bytes of the file as UTF-8, never ending in half a character. */
  text: string;
  /** The file's size in bytes. */
  size: number;
  /** Whether the file goes on past `text`. */
  truncated: boolean;
}

/**
 * Reads at most `maxBytes` bytes from the start of `file`: a file the agent reads back for a
 * prompt or an index (rules, memory pages, skill references) may be any size, and `readFile`
 * would hold all of it (200 MB of rules cost over a gigabyte) or fail past 2 GiB. Errors are
 * `fs`'s own (ENOENT, EISDIR, ELOOP…).
 */
export async function readTextHead(file: string, maxBytes: number): Promise<TextHead> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(maxBytes, size)));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    // StringDecoder.write keeps an incomplete last character back: the head never ends in U+FFFD.
    const text = new StringDecoder('utf8').write(buffer.subarray(0, filled));
    return { text, size, truncated: size > filled };
  } finally {
    await handle.close();
  }
}
