import { describe, expect, it } from 'vitest';
import { fuseRankings } from '../../src/retrieval/fuse-rankings.js';
import { applyGroupBoost } from '../../src/retrieval/group-boost.js';

const ranked = (scores: Map<number, number>) => [...scores].sort((a, b) => b[1] - a[1]).map(([rowid]) => rowid);

describe('fuseRankings', () => {
  // BM25 is sure about document 1; the dense side is flat and slightly prefers 2.
  const strong = { hits: [{ rowid: 1, score: 12 }, { rowid: 3, score: 2 }, { rowid: 2, score: 1 }, { rowid: 4, score: 0.5 }], weight: 1 };
  const weak = { hits: [{ rowid: 2, score: 0.41 }, { rowid: 3, score: 0.4 }, { rowid: 4, score: 0.395 }, { rowid: 1, score: 0.39 }], weight: 1 };

  it('score fusion keeps a confident ranker on top where plain RRF lets a flat one drag it down', () => {
    expect(ranked(fuseRankings([strong, weak], { method: 'score', normalization: 'max' }))[0]).toBe(1);
    // RRF sees only ranks: 1 is first and last, so documents ranked twice in the middle pass it.
    expect(ranked(fuseRankings([strong, weak], { method: 'rrf' }))[0]).not.toBe(1);
  });

  it('normalises each ranker against its own list', () => {
    for (const normalization of ['max', 'minmax'] as const) {
      const fused = fuseRankings([strong], { method: 'score', normalization });
      expect(fused.get(1)).toBeCloseTo(1);
      expect(Math.max(...fused.values())).toBe(fused.get(1));
      expect([...fused.values()].every(Number.isFinite)).toBe(true);
    }
  });

  it('ignores empty rankings and zero weights', () => {
    const fused = fuseRankings([strong, { hits: [], weight: 1 }, { ...weak, weight: 0 }], { method: 'score', normalization: 'max' });
    expect(ranked(fused)).toEqual([1, 3, 2, 4]);
  });
});

describe('applyGroupBoost', () => {
  it('lifts a tool whose server has other matching tools over a lone lookalike', () => {
    // write_file on two servers scores the same; the fs server also matches with read_file.
    const scores = new Map([
      [1, 0.8], // fs/write_file
      [2, 0.8], // notes/write_file
      [3, 0.6], // fs/read_file
      [4, 0.1], // notes/list_notes
    ]);
    const group = (rowid: number) => (rowid === 1 || rowid === 3 ? 'fs' : 'notes');
    const boosted = applyGroupBoost(scores, group, { boost: 0.2 });
    expect(boosted.get(1)).toBeGreaterThan(boosted.get(2)!);
    expect(ranked(boosted)[0]).toBe(1);
  });

  it('never lifts a document by its own score, and is off at boost 0', () => {
    const scores = new Map([[1, 0.9], [2, 0.5]]);
    const boosted = applyGroupBoost(scores, (rowid) => `server-${rowid}`, { boost: 1 });
    expect(boosted).toEqual(scores);
    expect(applyGroupBoost(scores, () => 'same', { boost: 0 })).toBe(scores);
  });
});
