import { describe, expect, it } from 'vitest';
import { mergeSteps } from '../../src/retrieval/merge-rankings.js';
import { isStatement, splitSteps } from '../../src/retrieval/split-steps.js';
import { applyStepBonus } from '../../src/retrieval/step-bonus.js';

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

describe('mergeSteps', () => {
  const whole: Ranked = [[1, 10], [2, 9], [3, 8], [4, 7], [5, 6]];
  const stepA: Ranked = [[5, 3], [1, 2], [2, 1]];
  const stepB: Ranked = [[1, 3], [2, 2.9], [3, 2.8]];

  it('returns the whole ranking when there are no steps', () => {
    expect(mergeSteps([whole], 3, { bonus: 0.15, bonusDepth: 4 })).toEqual(whole.slice(0, 3));
  });

  it("lifts the steps' top hits by the bonus", () => {
    expect(mergeSteps([whole, stepA, stepB], 3, { bonus: 0.5, bonusDepth: 1 }).map(([rowid]) => rowid)).toEqual([1, 5, 2]);
  });
});
