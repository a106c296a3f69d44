import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema, ValidationResult } from '../tools/tool.js';

/**
 * Validates tool arguments against the JSON Schema a server published, before the call leaves
 * the process: the model gets a precise error to fix its call, and the server never sees junk.
 * Each distinct schema is compiled once and cached (servers re-list their tools on every
 * `list_changed`; unchanged schemas reuse their compiled validator).
 */
export class JsonSchemaValidator {
  private readonly draft7 = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  private readonly draft2020 = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  private readonly compiled = new Map<string, ValidateFunction | null>();

  /** `ok` with the arguments, or an error listing each violation as `path: message`. */
  validate(schema: JsonSchema, args: unknown): ValidationResult<Record<string, unknown>> {
    const value = args ?? {};
    const validator = this.compile(schema);
    // A schema ajv cannot compile is the server's bug: let the server judge the arguments.
    if (validator && !validator(value)) return { ok: false, error: formatErrors(validator.errors ?? []) };
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { ok: false, error: '(root): must be an object' };
    }
    return { ok: true, value: value as Record<string, unknown> };
  }

  private compile(schema: JsonSchema): ValidateFunction | null {
    const key = JSON.stringify(schema);
    const cached = this.compiled.get(key);
    if (cached !== undefined) return cached;
    let validator: ValidateFunction | null;
    try {
      const is2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
      const { $schema: _ignored, ...rest } = schema;
      validator = is2020 ? this.draft2020.compile(rest) : this.draft7.compile(rest);
    } catch {
      validator = null;
    }
    this.compiled.set(key, validator);
    return validator;
  }
}

function formatErrors(errors: readonly ErrorObject[]): string {
  return errors
    .map((error) => {
      const path = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : '(root)';
      const extra =
        error.keyword === 'additionalProperties'
          ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})`
          : error.keyword === 'enum'
            ? ` (${((error.params as { allowedValues?: unknown[] }).allowedValues ?? []).map((value) => JSON.stringify(value)).join(', ')})`
            : '';
      return `${path}: ${error.message ?? 'is invalid'}${extra}`;
    })
    .join('\n');
}
