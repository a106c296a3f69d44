/**
 * A window of a text file's lines: what `read_file` shows, read without loading the whole
 * file (see read-text-window.ts for the local disk, text-window-from-text.ts for a client's).
 */
export interface TextWindowOptions {
  /** First line, 1-based. */
  offset: number;
  /** At most this many lines. */
  limit: number;
  /** At most this many bytes of line text in all; a single longer line is kept up to this many bytes. */
  maxBytes: number;
  signal?: AbortSignal;
}

export interface TextWindowLine {
  /** The line without its terminator; cut to `maxBytes` bytes when longer. */
  text: string;
  /** The whole line's length in bytes (with `cut`: how much was read of it). */
  bytes: number;
  /** The line is longer than the window's cap: only its start was read. */
  cut?: true;
}

export interface TextWindow {
  /** The file's first bytes hold a NUL: it is not text, and `lines` is empty. */
  binary: boolean;
  lines: TextWindowLine[];
  /** Lines in the whole file, when the read went to its end. */
  totalLines?: number;
  /** More lines follow the window. */
  more: boolean;
  /** The window ended at the byte cap, before `limit` lines. */
  byteCapped: boolean;
  /** The file's size in bytes, when known. */
  size?: number;
}

/** How many leading bytes decide whether a file is binary. */
export const BINARY_PREFIX_BYTES = 8_192;
