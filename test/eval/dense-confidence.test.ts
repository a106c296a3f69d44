import { describe, expect, it } from 'vitest';
import { denseConfidence, denseRanking, type DenseConfidenceOptions } from '../../bench/ranking-experiments/dense-confidence.js';

const hits = (...rows: [number, number][]) => rows.map(([rowid, score]) => ({ rowid, score }));
const options = (overrides: Partial<DenseConfidenceOptions>): DenseConfidenceOptions => ({ method: 'off', k: 3, low: 0.2, high: 1, zMax: 2, outsideLexical: 1, ...overrides });

describe('denseConfidence', () => {
  const bm25 = hits([1, 9], [2, 3], [3, 2]);

  it('is 1 when off, whatever the lists say', () => {
    expect(denseConfidence(bm25, hits([7, 0.9], [8, 0.1]), options({}))).toBe(1);
  });

  it('agreement: rises with the share of BM25 top hits that dense also ranks on top', () => {
    const agreeing = denseConfidence(bm25, hits([2, 0.9], [1, 0.8], [3, 0.7]), options({ method: 'agreement' }));
    const partly = denseConfidence(bm25, hits([1, 0.9], [8, 0.8], [9, 0.7]), options({ method: 'agreement' }));
    const disjoint = denseConfidence(bm25, hits([7, 0.9], [8, 0.8], [9, 0.7]), options({ method: 'agreement' }));
    expect(agreeing).toBeCloseTo(1);
    expect(partly).toBeCloseTo(0.2 + 0.8 / 3);
    expect(disjoint).toBeCloseTo(0.2);
    // No lexical hits: nothing speaks against dense.
    expect(denseConfidence([], hits([7, 0.9]), options({ method: 'agreement' }))).toBeCloseTo(1);
  });

  it('separation: a dense winner far above its crowd is trusted more than a flat list', () => {
    const clear = denseConfidence(bm25, hits([1, 0.9], [2, 0.3], [3, 0.3]), options({ method: 'separation' }));
    const flat = denseConfidence(bm25, hits([1, 0.5], [2, 0.5], [3, 0.5]), options({ method: 'separation' }));
    expect(clear).toBeGreaterThan(flat);
    expect(flat).toBeCloseTo(0.2);
    expect(clear).toBeLessThanOrEqual(1);
  });

  it('lexical: a clear BM25 winner moves the factor towards `high`', () => {
    const lexical = options({ method: 'lexical', low: 1, high: 0.4 });
    expect(denseConfidence(hits([1, 10], [2, 10]), [], lexical)).toBeCloseTo(1);
    expect(denseConfidence(hits([1, 10], [2, 5]), [], lexical)).toBeCloseTo(0.7);
    expect(denseConfidence(hits([1, 10]), [], lexical)).toBeCloseTo(0.4);
    expect(denseConfidence([], [], lexical)).toBeCloseTo(1);
  });
});

describe('denseRanking', () => {
  const bm25 = hits([1, 9], [2, 3]);
  const dense = hits([7, 0.8], [2, 0.6], [1, 0.4]);

  it('passes the hits through unchanged when dense-only hits keep their whole score', () => {
    const ranking = denseRanking(bm25, dense, 1.3, options({ outsideLexical: 1 }), undefined);
    expect(ranking).toEqual({ hits: dense, weight: 1.3, normalization: undefined });
  });

  it('scales hits BM25 did not find, normalised against the unscaled best', () => {
    const ranking = denseRanking(bm25, dense, 1.3, options({ outsideLexical: 0.25 }), undefined);
    expect(ranking.normalization).toBe('none');
    expect(ranking.hits.map((hit) => hit.rowid)).toEqual([2, 1, 7]);
    expect(ranking.hits[0].score).toBeCloseTo(0.75);
    expect(ranking.hits[2].score).toBeCloseTo(0.25);
  });

  it('multiplies the weight by the request’s confidence', () => {
    const ranking = denseRanking(bm25, hits([7, 0.8], [8, 0.6]), 2, options({ method: 'agreement', outsideLexical: 1 }), undefined);
    expect(ranking.weight).toBeCloseTo(2 * 0.2);
  });
});
