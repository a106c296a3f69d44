/**
 * A minimal GGUF v3 writer: the key/value and tensor layout llama.cpp reads, 32-byte aligned,
 * little-endian, written in the order given (the byte-exact recipe depends on it).
 */
import { writeFileSync } from 'node:fs';

export type GgufValue =
  | { type: 'string'; value: string }
  | { type: 'uint32'; value: number }
  | { type: 'float32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'strings'; value: readonly string[] }
  | { type: 'int32s'; value: readonly number[] };

export interface GgufTensor {
  name: string;
  /** ggml ne: the fastest-varying dimension first. */
  shape: readonly number[];
  type: 'f32' | 'f16';
  /** f32: float values; f16: raw half-precision bit patterns. */
  data: Float32Array | Uint16Array;
}

const ALIGN = 32;
const TYPE = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9 } as const;
const GGML = { f32: 0, f16: 1 } as const;

class ByteWriter {
  private chunks: Buffer[] = [];
  length = 0;
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }
  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.push(b);
  }
  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.push(b);
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  pad(): void {
    this.push(Buffer.alloc((ALIGN - (this.length % ALIGN)) % ALIGN));
  }
  concat(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

export function encodeGguf(kvs: ReadonlyArray<readonly [string, GgufValue]>, tensors: readonly GgufTensor[]): Buffer {
  const out = new ByteWriter();
  out.push(Buffer.from('GGUF', 'latin1'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(kvs.length);
  for (const [key, value] of kvs) {
    out.str(key);
    writeValue(out, value);
  }
  let offset = 0;
  const blobs: Buffer[] = [];
  for (const tensor of tensors) {
    out.str(tensor.name);
    out.u32(tensor.shape.length);
    for (const n of tensor.shape) out.u64(n);
    out.u32(GGML[tensor.type]);
    out.u64(offset);
    const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
    const padded = Buffer.concat([data, Buffer.alloc((ALIGN - (data.length % ALIGN)) % ALIGN)]);
    blobs.push(padded);
    offset += padded.length;
  }
  out.pad();
  for (const blob of blobs) out.push(blob);
  return out.concat();
}

export function writeGguf(path: string, kvs: ReadonlyArray<readonly [string, GgufValue]>, tensors: readonly GgufTensor[]): void {
  writeFileSync(path, encodeGguf(kvs, tensors));
}

function writeValue(out: ByteWriter, value: GgufValue): void {
  switch (value.type) {
    case 'string':
      out.u32(TYPE.string);
      out.str(value.value);
      return;
    case 'uint32':
      out.u32(TYPE.uint32);
      out.u32(value.value);
      return;
    case 'float32': {
      out.u32(TYPE.float32);
      const b = Buffer.alloc(4);
      b.writeFloatLE(value.value);
      out.push(b);
      return;
    }
    case 'bool':
      out.u32(TYPE.bool);
      out.push(Buffer.from([value.value ? 1 : 0]));
      return;
    case 'strings':
      out.u32(TYPE.array);
      out.u32(TYPE.string);
      out.u64(value.value.length);
      for (const s of value.value) out.str(s);
      return;
    case 'int32s': {
      out.u32(TYPE.array);
      out.u32(TYPE.int32);
      out.u64(value.value.length);
      out.push(Buffer.from(Int32Array.from(value.value).buffer));
      return;
    }
  }
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE half-precision bits of a float32 value, rounded to nearest even (numpy's astype). */
export function float32ToFloat16Bits(x: number): number {
  f32[0] = x;
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  let mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}
