import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema, ValidationResult } from '../contracts/tool.js';
import { PlaitedError } from '../errors/plaited-error.js';

/**
 * Validates tool arguments against the JSON Schema a server published, before the call leaves
 * the process: the model gets a precise error to fix its call, and the server never sees junk.
 * Each distinct schema is compiled once and cached (servers re-list their tools on every
 * `list_changed`; unchanged schemas reuse their compiled validator).
 */
export class JsonSchemaValidator {
  #engines: { draft7: Ajv; draft2020: Ajv2020 } | undefined;
  private readonly compiled = new Map<string, ValidateFunction | null>();

  /**
   * Loads ajv (~50–80 ms of CPU to import and set up both dialects); called before a server's tools
   * are made, so a session with no MCP server never pays for it.
   */
  async load(): Promise<void> {
    if (this.#engines) return;
    const [{ Ajv }, { Ajv2020 }] = await Promise.all([import('ajv'), import('ajv/dist/2020.js')]);
    const options = { allErrors: true, strict: false, validateFormats: false };
    this.#engines ??= { draft7: new Ajv(options), draft2020: new Ajv2020(options) };
  }

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
    // MCP makes 2020-12 the default dialect; older drafts are used when a schema names one, and
    // as a second try for unlabelled schemas written the draft-07 way (tuple `items`).
    const loaded = this.#engines;
    if (!loaded) throw new PlaitedError('internal_error', 'JsonSchemaValidator.validate before load(): await load() before making the tools it checks');
    const { $schema: dialect, ...rest } = schema;
    const older = typeof dialect === 'string' && /draft-0[4-7]/.test(dialect);
    const engines = older ? [loaded.draft7] : [loaded.draft2020, loaded.draft7];
    let validator: ValidateFunction | null = null;
    for (const engine of engines) {
      try {
        validator = engine.compile(rest);
        break;
      } catch {
        // try the next dialect; none left means the server judges the arguments itself
      }
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
