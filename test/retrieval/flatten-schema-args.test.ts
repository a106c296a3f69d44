import { describe, expect, it } from 'vitest';
import { flattenSchemaArgs } from '../../src/retrieval/flatten-schema-args.js';
import { contentHash } from '../../src/retrieval/content-hash.js';
import { embeddingText, ftsColumns } from '../../src/retrieval/document-text.js';

describe('flattenSchemaArgs', () => {
  it('lists argument names with their descriptions, nested ones too', () => {
    const text = flattenSchemaArgs({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name.' },
        options: { type: 'object', properties: { units: { type: 'string', description: 'metric or imperial' } } },
        tags: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } } } },
      },
    });
    expect(text).toBe('city: City name. options. units: metric or imperial tags. label.');
  });

  it('caps huge schemas and tolerates junk', () => {
    const properties = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`field${i}`, { description: 'x'.repeat(20) }]));
    expect(flattenSchemaArgs({ properties }, { maxChars: 300 }).length).toBe(300);
    expect(flattenSchemaArgs(null)).toBe('');
    expect(flattenSchemaArgs({ properties: [1, 2] })).toBe('');
  });
});

describe('document text', () => {
  const document = {
    id: 'tool:x',
    kind: 'tool',
    namespace: 'x',
    fields: { name: 'themeparkhipster', description: 'Find theme park waiting times.', args: 'parkId: The park.' },
  };

  it('indexes split and joined names and splits identifiers in every field', () => {
    const columns = ftsColumns({ ...document, fields: { ...document.fields, name: 'getParkTimes' } });
    expect(columns.name).toBe('get Park Times getparktimes');
    // Punctuation means nothing to FTS5 or the embedder; identifier separators become spaces.
    expect(columns.args).toBe('park Id  The park ');
    expect(ftsColumns(document).name).toBe('theme park hipster themeparkhipster');
    expect(ftsColumns(document, { splitGluedNames: false }).name).toBe('themeparkhipster');
  });

  it('embeds the name first and caps the words', () => {
    expect(embeddingText(document)).toBe('theme park hipster Find theme park waiting times');
    expect(embeddingText({ ...document, fields: { name: 'n', description: 'word '.repeat(1000) } }, { maxWords: 10 }).split(' ')).toHaveLength(10);
  });

  it('hashes content regardless of key order', () => {
    expect(contentHash({ a: 1, b: { c: [1, 2], d: undefined } })).toBe(contentHash({ b: { c: [1, 2] }, a: 1 }));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
  });
});
