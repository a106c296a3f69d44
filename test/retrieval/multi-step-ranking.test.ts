import { describe, expect, it } from 'vitest';
import { diversifyRanking } from '../../src/retrieval/diversify-ranking.js';
import { mergeRankings } from '../../src/retrieval/merge-rankings.js';
import { resolveTuning } from '../../src/retrieval/retrieval-tuning.js';
import { selectSteps, stepConfidence } from '../../src/retrieval/select-steps.js';
import { applyServerEvidence, namespaceCentroids } from '../../src/retrieval/server-evidence.js';
import { isStatement, splitSteps } from '../../src/retrieval/split-steps.js';
import { applyStepBonus } from '../../src/retrieval/step-bonus.js';
import { VectorMatrix } from '../../src/retrieval/vector-matrix.js';

type Ranked = [number, number][];

describe('statements are no steps', () => {
  it('recognises clauses that only state a value, not questions or requests', () => {
    expect(isStatement('My username is JohnDoe and my password is pass123')).toBe(true);
    expect(isStatement('the date is June 1st')).toBe(true);
    expect(isStatement('What is the weather in Paris')).toBe(false);
    expect(isStatement('Which language is this email written in')).toBe(false);
    expect(isStatement('check the weather')).toBe(false);
  });

  it('splitSteps drops them when asked', () => {
    const request = 'Remind me to call mom tomorrow. My username is admin and my password is secret. Then book a table for two';
    expect(splitSteps(request, { maxSteps: 6 })).toHaveLength(4);
    expect(splitSteps(request, { maxSteps: 6, skipStatements: true })).toEqual(['Remind me to call mom tomorrow', 'Then book a table for two']);
  });
});

describe('applyStepBonus', () => {
  const whole: Ranked = [[1, 10], [2, 9], [3, 8], [4, 7]];

  it("lifts a step's top hits by a share of the whole request's best score, falling with rank", () => {
    const merged = applyStepBonus(whole, [[[4, 3], [3, 2]]], { weight: 0.3, depth: 2 });
    // 4 gains 0.3 × 10 × 1 = 3 (to 10), 3 gains 0.3 × 10 × 0.5 = 1.5 (to 9.5).
    expect(merged).toEqual([[1, 10], [4, 10], [3, 9.5], [2, 9]]);
  });

  it('adds up when steps agree, and brings in hits the whole request lacked', () => {
    const merged = applyStepBonus(whole, [[[2, 1]], [[2, 1]], [[9, 5]]], { weight: 0.1, depth: 1 });
    expect(merged[0]).toEqual([2, 11]);
    expect(merged.find(([rowid]) => rowid === 9)).toEqual([9, 1]);
  });

  it('changes nothing at weight 0', () => {
    expect(applyStepBonus(whole, [[[4, 3]]], { weight: 0, depth: 3 })).toEqual(whole);
  });
});

describe('selectSteps', () => {
  const clear: Ranked = [[1, 2], [2, 1.9], [3, 1], [4, 0.9], [5, 0.8], [6, 0.7]];
  const flat: Ranked = [[1, 2], [2, 1.99], [3, 1.98], [4, 1.97], [5, 1.96], [6, 1.95]];

  it('measures how far the best score stands above the score at rank `at`', () => {
    expect(stepConfidence(clear, 5)).toBeCloseTo(0.6);
    expect(stepConfidence(flat, 5)).toBeCloseTo(0.02);
    expect(stepConfidence([], 5)).toBe(0);
  });

  it('keeps confident steps, and none when fewer than two remain', () => {
    expect(selectSteps([clear, clear, flat], { at: 5, minConfidence: 0.3, minSteps: 2 })).toEqual([clear, clear]);
    expect(selectSteps([clear, flat], { at: 5, minConfidence: 0.3, minSteps: 2 })).toEqual([]);
  });
});

describe('diversifyRanking', () => {
  // 1, 2 and 3 are near-duplicates; 4 is different.
  const similar = new Set(['1-2', '1-3', '2-3']);
  const similarity = (a: number, b: number) => (similar.has(`${Math.min(a, b)}-${Math.max(a, b)}`) ? 0.95 : 0.3);
  const ranked: Ranked = [[1, 1], [2, 0.95], [3, 0.9], [4, 0.8]];

  it('moves a distinct document above the lookalikes of the first', () => {
    const merged = diversifyRanking(ranked, 4, similarity, { lambda: 0.5, depth: 10, threshold: 0.75, multiStepOnly: false });
    expect(merged.map(([rowid]) => rowid)).toEqual([1, 4, 2, 3]);
    const scores = merged.map(([, score]) => score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('keeps the order at lambda 0', () => {
    expect(diversifyRanking(ranked, 4, similarity, { lambda: 0, depth: 10, threshold: 0.75, multiStepOnly: false })).toEqual(ranked);
  });
});

describe('server evidence', () => {
  const matrix = new VectorMatrix(2, [
    { rowid: 1, vector: Float32Array.from([1, 0]) },
    { rowid: 2, vector: Float32Array.from([0.8, 0.6]) },
    { rowid: 3, vector: Float32Array.from([0, 1]) },
    { rowid: 4, vector: Float32Array.from([0.6, 0.8]) },
    { rowid: 5, vector: Float32Array.from([1, 0]) },
  ]);
  const namespaceOf = (rowid: number) => ({ 1: 'maps', 2: 'maps', 3: 'chat', 4: 'chat', 5: 'lone' })[rowid];

  it('has a centroid only for namespaces with enough documents', () => {
    const centroids = namespaceCentroids(matrix, namespaceOf, 2);
    expect([...centroids.keys()].sort()).toEqual(['chat', 'maps']);
    expect(Math.hypot(...(centroids.get('maps') ?? []))).toBeCloseTo(1);
  });

  it("lifts each document by its namespace's fit relative to the best namespace", () => {
    const fits: Record<string, number> = { maps: 0.9, chat: 0.3 };
    const lifted = applyServerEvidence(new Map([[1, 1], [3, 1], [5, 1]]), namespaceOf, (ns) => fits[ns], { weight: 0.5, minDocs: 2 });
    expect(lifted.get(1)).toBeCloseTo(1.5);
    expect(lifted.get(3)).toBeCloseTo(1 + 0.5 / 3);
    expect(lifted.get(5)).toBeCloseTo(1);
  });
});

describe('mergeRankings', () => {
  const whole: Ranked = [[1, 10], [2, 9], [3, 8], [4, 7], [5, 6]];
  const stepA: Ranked = [[5, 3], [1, 2], [2, 1]];
  const stepB: Ranked = [[1, 3], [2, 2.9], [3, 2.8]];

  it('returns the whole ranking when there are no steps', () => {
    expect(mergeRankings([whole], 3, resolveTuning(), undefined)).toEqual(whole.slice(0, 3));
  });

  it('merges steps by bonus by default and round by round on request', () => {
    const bonus = mergeRankings([whole, stepA, stepB], 3, resolveTuning({ steps: { bonus: 0.5, bonusDepth: 1 } }), undefined);
    expect(bonus.map(([rowid]) => rowid)).toEqual([1, 5, 2]);
    const interleaved = mergeRankings([whole, stepA, stepB], 3, resolveTuning({ steps: { merge: 'interleave' } }), undefined);
    expect(interleaved.map(([rowid]) => rowid)).toEqual([1, 5, 2]);
  });

  it('ignores steps whose own ranking is not confident', () => {
    const flat: Ranked = [[5, 3], [4, 2.99], [3, 2.98], [2, 2.97], [1, 2.96]];
    const merged = mergeRankings([whole, flat, stepB], 3, resolveTuning({ steps: { bonus: 0.5, bonusDepth: 1, minConfidence: 0.2 } }), undefined);
    expect(merged.map(([rowid]) => rowid)).toEqual([1, 2, 3]);
  });
});
