import { describe, expect, it } from 'vitest';
import { cleanQuery, stripFillerPhrases, stripLiteralValues } from '../../src/retrieval/clean-query.js';

describe('cleanQuery', () => {
  it('drops request framing and function words, keeps the intent', () => {
    expect(cleanQuery('Can you please help me find the weather forecast for tomorrow?')).toEqual(['find', 'weather', 'forecast', 'tomorrow']);
    expect(cleanQuery("I'd like to book a hotel")).toEqual(['book', 'hotel']);
    expect(cleanQuery('Tell me about the stock price of Apple')).toEqual(['stock', 'price', 'apple']);
  });

  it('keeps content senses of framing words', () => {
    expect(cleanQuery('find songs like this one')).toContain('like');
    expect(cleanQuery('search the help articles')).toContain('help');
  });

  it('drops literal values: numbers, dates, ids and e-mail addresses', () => {
    expect(cleanQuery('My username is user3 and my password is user3pass, email john@example.com, on 2023-03-24 at 10:00')).toEqual([
      'username',
      'password',
      'email',
    ]);
    expect(cleanQuery('order 42 items', { dropLiterals: false })).toContain('42');
  });

  it('splits identifiers and removes duplicates', () => {
    expect(cleanQuery('createIssue create_issue')).toEqual(['create', 'issue']);
  });

  it('never empties a request by itself', () => {
    expect(cleanQuery('help me')).toEqual(['help', 'me']);
    expect(cleanQuery('')).toEqual([]);
  });

  it('cleans a megabyte-long token (a pasted base64 blob) in one pass', () => {
    const blob = 'QUJD'.repeat(256 * 1024);
    expect(cleanQuery(`decode ${blob}`)).toEqual(['decode', blob.toLowerCase()]);
    expect(stripLiteralValues(`mail me: <bob@example.com>, or ${'a@'.repeat(100_000)}`)).toBe(`mail me:   or ${'a@'.repeat(100_000)}`);
  });

  it('leaves words that only look like framing alone', () => {
    expect(stripFillerPhrases('canyon hike')).toBe('canyon hike');
    expect(stripLiteralValues('version two')).toBe('version two');
  });
});
