import { describe, expect, it } from 'vitest';
import { embeddingText, firstSentence } from '../../src/retrieval/document-text.js';
import { indexRecipe, resolveTuning } from '../../src/retrieval/retrieval-tuning.js';
import type { IndexDocument } from '../../src/retrieval/search-index.js';

const document: IndexDocument = {
  id: 'tool:mcp__github__create_issue',
  kind: 'tool',
  namespace: 'github',
  fields: {
    name: 'create_issue',
    description: 'Create a new issue in a GitHub repository. Use it when the user reports a bug.',
    body: 'Markdown is allowed in the body of the issue.',
  },
};

describe('embeddingText options', () => {
  it('firstSentence: the name and the description up to its first sentence end, no body', () => {
    expect(embeddingText(document, { firstSentence: true })).toBe('create issue Create a new issue in a Git Hub repository');
    expect(firstSentence('No sentence end')).toBe('No sentence end');
    expect(firstSentence('Version 1.2 of it. More')).toBe('Version 1.2 of it.');
    expect(firstSentence('One line\nanother')).toBe('One line\n');
  });

  it('dropStopWords: English function words leave the embedded text, content words stay', () => {
    const text = embeddingText(document, { dropStopWords: true });
    expect(text.split(' ')).not.toContain('a');
    expect(text.split(' ')).not.toContain('the');
    expect(text).toBe('create issue Create new issue Git Hub repository Use user reports bug Markdown allowed body issue');
    // A text made only of function words keeps them: an empty text would embed as nothing.
    expect(embeddingText({ ...document, fields: { name: 'it' } }, { dropStopWords: true })).toBe('it');
  });

  it('the index recipe only changes when one of them is on', () => {
    const before = JSON.stringify({ splitGluedNames: true, embedding: { maxWords: 160, includeArgs: true, groupBelowWords: 0 }, cjkBigrams: true });
    expect(indexRecipe(resolveTuning())).toBe(before);
    expect(indexRecipe(resolveTuning({ embedding: { dropStopWords: true } }))).not.toBe(before);
  });
});
