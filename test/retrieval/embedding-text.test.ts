import { describe, expect, it } from 'vitest';
import { embeddingText } from '../../src/retrieval/document-text.js';
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

describe('embeddingText', () => {
  it('is the name, the whole description and the body, identifiers split', () => {
    expect(embeddingText(document)).toBe(
      'create issue Create a new issue in a Git Hub repository Use it when the user reports a bug Markdown is allowed in the body of the issue',
    );
  });

  it('the index recipe of the shipped defaults is the one indexes were written with before the text experiments moved out', () => {
    const before = JSON.stringify({ splitGluedNames: true, embedding: { maxWords: 160, includeArgs: true, groupBelowWords: 0 }, cjkBigrams: true });
    expect(indexRecipe(resolveTuning())).toBe(before);
    expect(indexRecipe(resolveTuning({ embedding: { maxWords: 80 } }))).not.toBe(before);
  });
});
