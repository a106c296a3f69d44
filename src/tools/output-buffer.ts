/**
 * Collects a process's output under a byte cap. `tail` keeps the last bytes
 * (a failing build prints its error at the end); `head` keeps the first bytes
 * (a search wants its first results) and reports when it is full so the
 * caller can stop the producer early.
 */
export type OutputKeep = 'tail' | 'head';

export class OutputBuffer {
  readonly #maxBytes: number;
  readonly #keep: OutputKeep;
  #chunks: Buffer[] = [];
  #size = 0;
  #truncated = false;

  constructor(options: { maxBytes: number; keep: OutputKeep }) {
    if (!Number.isFinite(options.maxBytes) || options.maxBytes < 0) {
      throw new RangeError(`maxBytes must be a non-negative number, got ${options.maxBytes}`);
    }
    this.#maxBytes = Math.floor(options.maxBytes);
    this.#keep = options.keep;
  }

  get truncated(): boolean {
    return this.#truncated;
  }

  /** True when a `head` buffer can take no more bytes. */
  get full(): boolean {
    return this.#keep === 'head' && this.#size >= this.#maxBytes;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.#keep === 'head') {
      const room = this.#maxBytes - this.#size;
      if (room <= 0) {
        this.#truncated = true;
        return;
      }
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (kept !== chunk) this.#truncated = true;
      this.#chunks.push(Buffer.from(kept));
      this.#size += kept.length;
      return;
    }
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    // Drop whole chunks that fall entirely before the tail window; the partial
    // first chunk is cut in text().
    while (this.#chunks.length > 1 && this.#size - this.#chunks[0].length >= this.#maxBytes) {
      this.#size -= this.#chunks[0].length;
      this.#chunks.shift();
      this.#truncated = true;
    }
    if (this.#size > this.#maxBytes) this.#truncated = true;
  }

  /** The kept bytes as UTF-8, never starting or ending inside a multi-byte character. */
  text(): string {
    let bytes = Buffer.concat(this.#chunks);
    if (this.#keep === 'tail') {
      if (bytes.length > this.#maxBytes) bytes = bytes.subarray(bytes.length - this.#maxBytes);
      if (this.#truncated) bytes = bytes.subarray(leadingContinuationBytes(bytes));
    } else if (this.#truncated) {
      bytes = bytes.subarray(0, completeUtf8Length(bytes));
    }
    return bytes.toString('utf8');
  }
}

/** Bytes of the form 10xxxxxx at the start: the rest of a character whose start was cut off. */
function leadingContinuationBytes(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length && i < 3 && (bytes[i] & 0xc0) === 0x80) i++;
  return i;
}

/** Length of `bytes` without a trailing, incomplete multi-byte character. */
function completeUtf8Length(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}
