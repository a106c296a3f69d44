import { describe, it, expect } from 'vitest';
import { jsonSchemaToGbnf } from '../../src/model/json-schema-to-gbnf.js';

describe('jsonSchemaToGbnf', () => {
  it('keeps objects, required keys, enums, arrays and string limits; closes declared objects', () => {
    expect(
      jsonSchemaToGbnf({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          city: { type: 'string', description: 'City', maxLength: 40, pattern: '^[A-Z]' },
          unit: { type: 'string', enum: ['c', 'f'] },
          days: { type: 'array', items: { type: 'integer', minimum: 0 }, maxItems: 3 },
        },
        required: ['city', 'ghost'],
        additionalProperties: false,
      }),
    ).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', maxLength: 40, description: 'City' },
        unit: { enum: ['c', 'f'] },
        days: { type: 'array', items: { type: 'integer' }, maxItems: 3 },
      },
      required: ['city'],
      additionalProperties: false,
    });
  });

  it('turns type unions, anyOf and nullable types into oneOf / basic unions', () => {
    expect(jsonSchemaToGbnf({ type: ['string', 'null'] })).toEqual({ type: ['string', 'null'] });
    expect(jsonSchemaToGbnf({ anyOf: [{ type: 'number' }, { type: 'object', properties: { a: { type: 'boolean' } } }] })).toEqual({
      oneOf: [{ type: 'number' }, { type: 'object', properties: { a: { type: 'boolean' } }, required: [], additionalProperties: false }],
    });
  });

  it('inlines local $refs and stops at recursion', () => {
    const schema = {
      type: 'object',
      properties: { node: { $ref: '#/$defs/node' } },
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' } } } },
    };
    const out = JSON.stringify(jsonSchemaToGbnf(schema));
    expect(out).toContain('"child"');
    expect(out).not.toContain('$ref');
  });

  it('lets a free-form object take any properties', () => {
    expect(jsonSchemaToGbnf({ type: 'object' })).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: true });
    expect(jsonSchemaToGbnf({})).toEqual({ type: ['string', 'number', 'boolean', 'null'] });
  });
});
