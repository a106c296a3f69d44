/** A complete line, or the report of one that went over the limit (its head kept to find the id). */
export type LineEvent = { line: string } | { oversized: { bytes: number; head: string } };

const HEAD_BYTES = 4096;
const NEWLINE = 0x0a;

/**
 * Splits a byte stream into LF-terminated lines (CRLF tolerated) without ever holding more
 * than `maxBytes` of one line: past the limit the rest of the line is skipped as it arrives
 * and reported once, at its newline, so the next line is read normally.
 */
export class BoundedLineReader {
  #chunks: Buffer[] = [];
  #length = 0;
  #skipping: { bytes: number; head: string } | undefined;
  readonly #decoder = new TextDecoder();

  constructor(private readonly maxBytes: number) {}

  push(chunk: Uint8Array): LineEvent[] {
    const events: LineEvent[] = [];
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    while (start <= buffer.length) {
      const newline = buffer.indexOf(NEWLINE, start);
      const end = newline === -1 ? buffer.length : newline;
      this.#append(buffer.subarray(start, end));
      if (newline === -1) break;
      const event = this.#takeLine();
      if (event) events.push(event);
      start = newline + 1;
    }
    return events;
  }

  /** The last line when the stream ends without a newline. */
  flush(): LineEvent | undefined {
    return this.#takeLine();
  }

  #append(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.#skipping) {
      this.#skipping.bytes += bytes.length;
      return;
    }
    if (this.#length + bytes.length > this.maxBytes + 1 /* a CR before the LF */) {
      const held = Buffer.concat([...this.#chunks, bytes.subarray(0, HEAD_BYTES)]);
      this.#skipping = { bytes: this.#length + bytes.length, head: held.subarray(0, HEAD_BYTES).toString('utf8') };
      this.#chunks = [];
      this.#length = 0;
      return;
    }
    this.#chunks.push(Buffer.from(bytes));
    this.#length += bytes.length;
  }

  #takeLine(): LineEvent | undefined {
    if (this.#skipping) {
      const oversized = this.#skipping;
      this.#skipping = undefined;
      return { oversized };
    }
    if (this.#length === 0) return undefined;
    let bytes = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#length = 0;
    if (bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, -1);
    if (bytes.length > this.maxBytes) return { oversized: { bytes: bytes.length, head: bytes.subarray(0, HEAD_BYTES).toString('utf8') } };
    return { line: this.#decoder.decode(bytes) };
  }
}
