import { beforeAll, describe, expect, it } from 'vitest';
import { JsonSchemaValidator } from '../../src/mcp/json-schema-validator.js';

describe('JsonSchemaValidator', () => {
  const validator = new JsonSchemaValidator();
  beforeAll(() => validator.load());

  it('validates draft-07 and 2020-12 schemas with path: message errors', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 1 }, mode: { enum: ['a', 'b'] } }, required: ['n'] };
    expect(validator.validate(schema, { n: 2, mode: 'a' })).toEqual({ ok: true, value: { n: 2, mode: 'a' } });
    expect(validator.validate(schema, { n: 0, mode: 'c' })).toEqual({
      ok: false,
      error: 'n: must be >= 1\nmode: must be equal to one of the allowed values ("a", "b")',
    });
    const modern = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { list: { type: 'array', prefixItems: [{ type: 'string' }] } } };
    expect(validator.validate(modern, { list: [1] })).toEqual({ ok: false, error: 'list.0: must be string' });
  });

  it('treats missing arguments as an empty object and rejects non-objects', () => {
    expect(validator.validate({ type: 'object', properties: {} }, undefined)).toEqual({ ok: true, value: {} });
    expect(validator.validate({}, [1, 2])).toEqual({ ok: false, error: '(root): must be an object' });
  });

  it('lets the server judge when a schema cannot be compiled', () => {
    expect(validator.validate({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }, { a: 1 })).toEqual({ ok: true, value: { a: 1 } });
  });
});

describe('JsonSchemaValidator dialects', () => {
  it('reads unlabelled schemas as 2020-12 and falls back to draft-07 for tuple items', async () => {
    const validator = new JsonSchemaValidator();
    await validator.load();
    const unlabelled = { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } } };
    expect(validator.validate(unlabelled, { pair: ['a', 'b'] })).toEqual({ ok: false, error: 'pair.1: must be number' });
    const draft7Tuple = { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } } };
    expect(validator.validate(draft7Tuple, { pair: ['a', 'b'] })).toEqual({ ok: false, error: 'pair.1: must be number' });
    const labelled = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { x: { type: 'string' } } };
    expect(validator.validate(labelled, { x: 1 })).toEqual({ ok: false, error: 'x: must be string' });
  });
});

describe('JsonSchemaValidator before load', () => {
  it('refuses to validate, naming the call that was skipped', () => {
    expect(() => new JsonSchemaValidator().validate({ type: 'object' }, {})).toThrow(/await load\(\)/);
  });
});
