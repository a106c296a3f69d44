import { describe, expect, it } from 'vitest';
import { isZeroVector, normalize, VectorMatrix } from '../../src/retrieval/vector-matrix.js';

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
    const scored = matrix.score(unit(0, 0, 1, 0, 0), [12, 13, 99]);
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
});
