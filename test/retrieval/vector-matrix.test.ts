import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createDotKernel } from '../../src/retrieval/dot-kernel.js';
import { dotProduct, isZeroVector, normalize, VectorMatrix } from '../../src/retrieval/vector-matrix.js';

const unit = (...values: number[]) => normalize(Float32Array.from(values));

describe('VectorMatrix', () => {
  const rows = [
    { rowid: 10, vector: unit(1, 0, 0, 0, 0) },
    { rowid: 11, vector: unit(1, 1, 0, 0, 0) },
    { rowid: 12, vector: unit(0, 0, 1, 0, 0) },
    { rowid: 13, vector: new Float32Array(5) },
    { rowid: 14, vector: unit(-1, 0, 0, 0, 1) },
  ];
  const matrix = new VectorMatrix(5, rows);

  it('returns the nearest rows by cosine, best first', () => {
    const hits = matrix.nearest(unit(1, 0.2, 0, 0, 0), 3);
    expect(hits.map((hit) => hit.rowid)).toEqual([10, 11, 12]);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
    expect(matrix.nearest(unit(1, 0, 0, 0, 0), 10)).toHaveLength(5);
  });

  it('skips rows the filter rejects and handles degenerate limits', () => {
    expect(matrix.nearest(unit(1, 0, 0, 0, 0), 2, (rowid) => rowid !== 10).map((hit) => hit.rowid)).toEqual([11, 12]);
    expect(matrix.nearest(unit(1, 0, 0, 0, 0), 0)).toEqual([]);
    expect(matrix.nearest(new Float32Array(3), 2)).toEqual([]);
  });

  it('scores named rows exactly and never yields NaN for zero vectors', () => {
    const scored = matrix.nearest(unit(0, 0, 1, 0, 0), 1, undefined, [12, 13, 99]);
    expect(scored).toEqual([
      { rowid: 12, score: expect.closeTo(1, 5) },
      { rowid: 13, score: 0 },
    ]);
    const zero = matrix.nearest(new Float32Array(5), 5);
    expect(zero.every((hit) => hit.score === 0)).toBe(true);
  });

  it('normalises in place and keeps zero vectors zero', () => {
    expect(Array.from(unit(3, 4))).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(isZeroVector(normalize(new Float32Array(4)))).toBe(true);
    expect(isZeroVector(normalize(Float32Array.from([Number.NaN, 1])))).toBe(true);
  });

  it('adds the rows of `also` outside the top list with scores from the same scan', () => {
    const hits = matrix.nearest(unit(1, 0, 0, 0, 0), 1, undefined, [12, 10, 99, 14]);
    expect(hits.map((hit) => hit.rowid)).toEqual([10, 12, 14]);
    expect(hits[2].score).toBeCloseTo(-Math.SQRT1_2, 5);
  });

  it('takes a mask computed once in place of the filter', () => {
    const mask = matrix.mask((rowid) => rowid !== 10);
    expect(matrix.nearest(unit(1, 0, 0, 0, 0), 2, mask).map((hit) => hit.rowid)).toEqual([11, 12]);
  });
});

describe('the WebAssembly SIMD scan', () => {
  // Deterministic pseudo-random vectors (no seedable Math.random).
  let seed = 7;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) - 0.5;
  const vectors = (count: number, dimensions: number) =>
    Array.from({ length: count }, (_, i) => ({ rowid: i + 1, vector: normalize(Float32Array.from({ length: dimensions }, random)) }));

  it('runs on this runtime (Node 20 has WebAssembly SIMD)', () => {
    expect(createDotKernel(3, 5)?.stride).toBe(8);
  });

  it.each([5, 13, 100, 384])('ranks exactly as the JavaScript scan at %i dimensions', (dimensions) => {
    const rows = vectors(500, dimensions);
    const simd = new VectorMatrix(dimensions, rows);
    const plain = new VectorMatrix(dimensions, rows, { simd: false });
    for (const { vector: query } of vectors(5, dimensions)) {
      const a = simd.nearest(query, 50, (rowid) => rowid % 7 !== 0, [1, 2, 3]);
      const b = plain.nearest(query, 50, (rowid) => rowid % 7 !== 0, [1, 2, 3]);
      expect(a.map((hit) => hit.rowid)).toEqual(b.map((hit) => hit.rowid));
      a.forEach((hit, i) => expect(hit.score).toBeCloseTo(b[i].score, 5));
    }
    expect(simd.vectorOf(3)).toEqual(rows[2].vector);
    expect(dotProduct(simd.vectorOf(1), simd.vectorOf(1)!)).toBeCloseTo(1, 5);
  });

  it('is built from its committed source (tools/wasm/dot-kernel.wat)', () => {
    expect(() => execFileSync(process.execPath, ['tools/wasm/build-dot-kernel.mjs', '--check'], { stdio: 'pipe' })).not.toThrow();
  });
});
