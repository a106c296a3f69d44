import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

/** The beginning of a text file, read without reading the rest. */
export interface TextHead {
  /** At most `maxBytes` bytes of the file as text (see decodeText), never ending in half a character. */
  text: string;
  /** The file's size in bytes. */
  size: number;
  /** Whether the file goes on past `text`. */
  truncated: boolean;
}

/**
 * UTF-8, or UTF-16 when the bytes start with its byte order mark (a file saved as "Unicode" by
 * Windows editors, which read as UTF-8 would be a NUL between every letter); a byte order mark is
 * not part of the text. StringDecoder.write keeps an incomplete last character back: the head
 * never ends in U+FFFD.
 */
export function decodeText(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new StringDecoder('utf16le').write(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    const swapped = Buffer.from(bytes.subarray(2, 2 + ((bytes.length - 2) & ~1)));
    return new StringDecoder('utf16le').write(swapped.swap16());
  }
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return new StringDecoder('utf8').write(bytes.subarray(start));
}

/**
 * Reads at most `maxBytes` bytes from the start of `file`: a file the agent reads back for a
 * prompt or an index (rules, memory pages, skill references) may be any size, and `readFile`
 * would hold all of it (200 MB of rules cost over a gigabyte) or fail past 2 GiB. Errors are
 * `fs`'s own (ENOENT, EISDIR, ELOOP…), and ENOTFILE for a pipe, socket or device, which is never
 * waited on.
 */
export async function readTextHead(file: string, maxBytes: number): Promise<TextHead> {
  // Non-blocking: opening a named pipe for reading would otherwise wait for a writer, for ever.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const { size } = regularFile(await handle.stat(), file);
    const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(maxBytes, size)));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { text: decodeText(buffer.subarray(0, filled)), size, truncated: size > filled };
  } finally {
    await handle.close();
  }
}

/** readTextHead for the few readers that must stay synchronous (the trust decisions, permission rules, process ledgers). */
export function readTextHeadSync(file: string, maxBytes: number): TextHead {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const { size } = regularFile(fstatSync(fd), file);
    const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(maxBytes, size)));
    let filled = 0;
    while (filled < buffer.length) {
      const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { text: decodeText(buffer.subarray(0, filled)), size, truncated: size > filled };
  } finally {
    closeSync(fd);
  }
}

/** The file's stats; a pipe, socket or device is ENOTFILE (a folder fails on read, EISDIR). */
function regularFile<T extends Pick<Stats, 'isFile' | 'isDirectory' | 'size'>>(info: T, file: string): T {
  if (info.isFile() || info.isDirectory()) return info;
  throw Object.assign(new Error(`ENOTFILE: not a regular file (a pipe, socket or device), open '${file}'`), { code: 'ENOTFILE', path: file });
}
