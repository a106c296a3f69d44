import type { GbnfJsonSchema } from 'node-llama-cpp';

/**
 * A tool's JSON Schema → the subset node-llama-cpp compiles into a grammar. Local `$ref`s are
 * inlined (recursion stops at a depth limit and falls back to "any scalar"), `anyOf`/`oneOf`
 * become `oneOf`, type unions become basic unions, and keywords the grammar cannot express
 * (patterns, numeric ranges) are dropped: the tool validates its input anyway.
 */
export function jsonSchemaToGbnf(schema: unknown): GbnfJsonSchema {
  return convert(schema, schema, 0);
}

const ANY_SCALAR: GbnfJsonSchema = { type: ['string', 'number', 'boolean', 'null'] };
const MAX_DEPTH = 8;
const BASIC = new Set(['string', 'number', 'integer', 'boolean', 'null']);

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(node)) return undefined;
    node = node[key];
  }
  return node;
}

function withDescription(out: GbnfJsonSchema, schema: Schema): GbnfJsonSchema {
  return typeof schema.description === 'string' ? ({ ...out, description: schema.description } as GbnfJsonSchema) : out;
}

function convert(schema: unknown, root: unknown, depth: number): GbnfJsonSchema {
  if (schema === true || !isSchema(schema) || depth > MAX_DEPTH) return ANY_SCALAR;
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(root, schema.$ref);
    return target === undefined ? ANY_SCALAR : convert(target, root, depth + 1);
  }
  if ('const' in schema && isScalar(schema.const)) return withDescription({ const: schema.const }, schema);
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter(isScalar);
    if (values.length > 0) return withDescription({ enum: values }, schema);
  }
  const alternatives = (Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined) as
    | unknown[]
    | undefined;
  if (alternatives && alternatives.length > 0) {
    return withDescription({ oneOf: alternatives.map((alt) => convert(alt, root, depth + 1)) }, schema);
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return convert(schema.allOf[0], root, depth + 1);

  const types = Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length > 1) {
    const basic = types.filter((t) => BASIC.has(t));
    const complex = types.filter((t) => !BASIC.has(t)).map((type) => convert({ ...schema, type }, root, depth + 1));
    const options: GbnfJsonSchema[] = [
      ...(basic.length > 0 ? [{ type: basic as Array<'string' | 'number' | 'integer' | 'boolean' | 'null'> } as GbnfJsonSchema] : []),
      ...complex,
    ];
    return options.length === 1 ? options[0] : withDescription({ oneOf: options }, schema);
  }
  const type = types[0] ?? (isSchema(schema.properties) ? 'object' : schema.items !== undefined ? 'array' : undefined);
  switch (type) {
    case 'object': {
      const properties: Record<string, GbnfJsonSchema> = {};
      if (isSchema(schema.properties)) {
        for (const [key, value] of Object.entries(schema.properties)) properties[key] = convert(value, root, depth + 1);
      }
      const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === 'string' && k in properties) : [];
      const additional = schema.additionalProperties;
      return withDescription(
        {
          type: 'object',
          properties,
          required,
          // Without declared properties an object is free-form; with them, keep the model to them.
          additionalProperties: Object.keys(properties).length === 0 ? (isSchema(additional) ? convert(additional, root, depth + 1) : true) : false,
        },
        schema,
      );
    }
    case 'array': {
      const out: Record<string, unknown> = { type: 'array', items: schema.items === undefined ? ANY_SCALAR : convert(schema.items, root, depth + 1) };
      if (typeof schema.minItems === 'number') out.minItems = schema.minItems;
      if (typeof schema.maxItems === 'number') out.maxItems = schema.maxItems;
      return withDescription(out as GbnfJsonSchema, schema);
    }
    case 'string': {
      if (schema.format === 'date-time' || schema.format === 'date' || schema.format === 'time') {
        return withDescription({ type: 'string', format: schema.format }, schema);
      }
      const out: Record<string, unknown> = { type: 'string' };
      if (typeof schema.minLength === 'number') out.minLength = schema.minLength;
      if (typeof schema.maxLength === 'number') out.maxLength = schema.maxLength;
      return withDescription(out as GbnfJsonSchema, schema);
    }
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return withDescription({ type }, schema);
    default:
      return ANY_SCALAR;
  }
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}
