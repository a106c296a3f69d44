import { describe, expect, it } from 'vitest';
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
