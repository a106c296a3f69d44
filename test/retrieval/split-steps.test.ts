import { describe, expect, it } from 'vitest';
import { interleaveSteps } from '../../src/retrieval/interleave-steps.js';
import { splitSteps } from '../../src/retrieval/split-steps.js';

describe('splitSteps', () => {
  it('cuts a one-sentence request at clause level: list commas, "and", "then"', () => {
    expect(
      splitSteps("Find this week's trending AI news online, make a word cloud of the topics and then save it as a PDF", { maxSteps: 6 }),
    ).toEqual(["Find this week's trending AI news online", 'make a word cloud of the topics', 'save it as a PDF']);
  });

  it('drops one-word fragments and returns nothing for a single step', () => {
    expect(splitSteps('Put name, price and rating into the table', { maxSteps: 6 })).toEqual(['Put name', 'rating into the table']);
    expect(splitSteps('Draw a flowchart of our deployment pipeline', { maxSteps: 6 })).toEqual([]);
  });

  it('keeps Chinese clauses and caps the number of steps', () => {
    expect(splitSteps('看看北京明天的天气，然后帮我规划路线', { maxSteps: 6 })).toEqual(['看看北京明天的天气', '然后帮我规划路线']);
    expect(splitSteps('read the file, fix the bug, run the tests, commit the fix', { maxSteps: 2 })).toHaveLength(2);
  });
});

describe('interleaveSteps', () => {
  const whole: [number, number][] = [[1, 0.9], [2, 0.8], [3, 0.7]];
  const stepA: [number, number][] = [[2, 0.95], [4, 0.5]];
  const stepB: [number, number][] = [[5, 0.6], [1, 0.4]];

  it("gives every ranking its best unseen hit before any ranking's second", () => {
    expect(interleaveSteps([whole, stepA, stepB], 10).map(([rowid]) => rowid)).toEqual([1, 2, 5, 3, 4]);
  });

  it('lets the whole request lead, stops at the limit and never lets scores rise', () => {
    const merged = interleaveSteps([whole, stepA, stepB], 4, { lead: 2 });
    expect(merged.map(([rowid]) => rowid)).toEqual([1, 2, 3, 4]);
    const scores = merged.map(([, score]) => score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });
});
