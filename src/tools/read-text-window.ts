import type { FileHandle } from 'node:fs/promises';
import { openRegularFile } from './open-regular-file.js';
import { BINARY_PREFIX_BYTES, type TextWindow, type TextWindowLine, type TextWindowOptions } from './text-window.js';

const CHUNK_BYTES = 64 * 1024;
/** Past the window, lines are still counted (for "N more lines") in files up to this size. */
export const COUNT_LINES_UP_TO_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Reads a window of a text file's lines from disk in 64 KB chunks, never the whole file:
 * lines before `offset` are only counted (by their newline bytes), the window keeps at most
 * `maxBytes` bytes, and the file is binary when its first 8 KB hold a NUL. Memory stays
 * bounded by the chunk and the cap whatever the file's size, and every chunk is an await,
 * so the event loop keeps turning while a large file is scanned.
 */
export async function readTextWindow(file: string, options: TextWindowOptions): Promise<TextWindow> {
  const handle = await openRegularFile(file, 'read');
  try {
    const { size } = await handle.stat();
    const scan = new WindowScan(options);
    const chunks = readChunks(handle, options.signal);
    let first = true;
    for await (const chunk of chunks) {
      if (first && chunk.subarray(0, BINARY_PREFIX_BYTES).includes(0)) return { binary: true, lines: [], more: false, byteCapped: false, size };
      first = false;
      const rest = scan.feed(chunk);
      if (rest === undefined) continue;
      // The window is complete: count the remaining lines of a small file, or just say more follow.
      if (size <= COUNT_LINES_UP_TO_BYTES) {
        scan.countOnly(rest);
        for await (const more of chunks) scan.countOnly(more);
        return scan.result(true, size);
      }
      const more = rest.length > 0 || !(await chunks.next()).done;
      return { ...scan.result(false, size), more };
    }
    return scan.result(true, size);
  } finally {
    await handle.close();
  }
}

async function* readChunks(handle: FileHandle, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = 0;
  for (;;) {
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

/** The line-by-line state of one window read, fed chunk by chunk. */
class WindowScan {
  readonly #options: TextWindowOptions;
  readonly lines: TextWindowLine[] = [];
  /** The line the next byte belongs to (1-based). */
  #line = 1;
  /** Bytes seen since the last newline. */
  #pending = 0;
  #parts: Buffer[] = [];
  #kept = 0;
  #lastByte = -1;
  #used = 0;
  #byteCapped = false;
  /** Ended in the middle of a line (see #stopMidLine). */
  #stopped = false;

  constructor(options: TextWindowOptions) {
    this.#options = options;
  }

  /** Takes a chunk; once the window is complete, the chunk's unread rest (else undefined). */
  feed(chunk: Buffer): Buffer | undefined {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      const inWindow = this.#line >= this.#options.offset;
      if (inWindow) this.#keep(chunk, start, end);
      this.#pending += end - start;
      // A line longer than the room left ends the window without reading the rest of it.
      if (inWindow && this.#pending > this.#options.maxBytes - this.#used) {
        this.#stopMidLine();
        return chunk.subarray(end);
      }
      if (newline === -1) return undefined;
      const complete = this.#line >= this.#options.offset && this.#endLine();
      this.#line++;
      this.#pending = 0;
      start = newline + 1;
      if (complete) return chunk.subarray(start);
    }
    return undefined;
  }

  /** Past the window: counts lines only. */
  countOnly(chunk: Buffer): void {
    let at = chunk.indexOf(NEWLINE);
    let last = -1;
    while (at !== -1) {
      this.#line++;
      last = at;
      at = chunk.indexOf(NEWLINE, at + 1);
    }
    this.#pending = last === -1 ? this.#pending + chunk.length : chunk.length - last - 1;
  }

  result(toEnd: boolean, size: number | undefined): TextWindow {
    // A last line without a newline is a line too.
    if (toEnd && this.#pending > 0 && this.#line >= this.#options.offset && !this.#full()) this.#endLine();
    const totalLines = this.#line - 1 + (this.#pending > 0 ? 1 : 0);
    const shownEnd = this.#options.offset - 1 + this.lines.length;
    return {
      binary: false,
      lines: this.lines,
      more: toEnd ? totalLines > shownEnd : true,
      byteCapped: this.#byteCapped,
      ...(toEnd ? { totalLines } : {}),
      ...(size === undefined ? {} : { size }),
    };
  }

  #full(): boolean {
    return this.#stopped || this.#byteCapped || this.lines.length >= this.#options.limit;
  }

  #keep(chunk: Buffer, start: number, end: number): void {
    if (end === start) return;
    this.#lastByte = chunk[end - 1]!;
    const room = this.#options.maxBytes - this.#kept;
    if (room <= 0) return;
    const piece = chunk.subarray(start, Math.min(end, start + room));
    this.#parts.push(Buffer.from(piece)); // a copy: the chunk's buffer is reused
    this.#kept += piece.length;
  }

  /** The line in progress is over the cap: the first line of a window shows its start, a later one waits for the next window. */
  #stopMidLine(): void {
    if (this.lines.length === 0) this.lines.push({ text: Buffer.concat(this.#parts).toString('utf8'), bytes: this.#pending, cut: true });
    else this.#byteCapped = true;
    this.#parts = [];
    this.#kept = 0;
    this.#stopped = true;
  }

  /** Ends the current window line; true when the window is complete. */
  #endLine(): boolean {
    const crlf = this.#pending > 0 && this.#lastByte === CR;
    const bytes = this.#pending - (crlf ? 1 : 0);
    let text = Buffer.concat(this.#parts).toString('utf8');
    if (crlf && this.#kept === this.#pending) text = text.slice(0, -1);
    this.#parts = [];
    this.#kept = 0;
    this.#lastByte = -1;
    if (this.lines.length > 0 && this.#used + bytes > this.#options.maxBytes) {
      this.#byteCapped = true;
      return true;
    }
    this.#used += bytes;
    this.lines.push({ text, bytes });
    return this.#full();
  }
}
