import { z } from 'zod';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '../contracts/agent-output.js';
import type { JsonSchema, Tool, ToolContext, ToolPreviewContext, ToolResult, ToolRisk, ToolSource } from '../contracts/tool.js';
import { errorMessage } from '../errors/error-message.js';
import { ToolDefinitionError } from './tool-definition-error.js';

/** What the providers accept as a function name (OpenAI's rule; the others are as strict or less). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export interface DefineToolOptions<S extends z.ZodType> {
  /** What the model calls it: 1–64 letters, digits, `_` or `-`, unique among the agent's tools. */
  name: string;
  /** What it does and when to use it: the model picks tools by this text. */
  description: string;
  /** A zod object schema (`z.object({…})`): the model gets it as JSON Schema, and arguments are checked against it before `execute`. */
  parameters: S;
  /** `read` runs unasked; `write` and `external` ask permission unless the mode or a `tools.allow` rule lets them. */
  risk: ToolRisk;
  /** Where it comes from, for policy (`tools.sources`); default `local`. */
  source?: ToolSource;
  /** How clients show the call (`read`, `edit`, `execute`, `fetch`, …). */
  kind?: ToolKind;
  /** A one-line title of a call for clients (default: the tool's name). */
  title?(args: z.output<S>): string;
  /** The files a call touches, for clients to follow. */
  locations?(args: z.output<S>, cwd: string): ToolCallLocation[];
  /** What a call would change (a diff), shown with its permission question. */
  preview?(args: z.output<S>, context: ToolPreviewContext): Promise<ToolCallContent[] | undefined>;
  /**
   * Runs a call with checked arguments. A throw becomes an error result the model reads. Honour
   * `context.signal`: once the call is cancelled it has 5 s to settle, then it is let go.
   */
  execute(args: z.output<S>, context: ToolContext): Promise<ToolResult>;
}

/**
 * Builds a Tool from a zod schema: the schema validates arguments and becomes the JSON Schema the
 * model sees. A name or schema a model could not use is refused here, with a
 * {@link ToolDefinitionError} naming the tool and the fix, rather than failing every turn later.
 */
export function defineTool<S extends z.ZodType>(options: DefineToolOptions<S>): Tool<z.output<S>> {
  const { parameters, source = 'local', ...rest } = options;
  const inputSchema = checkedInputSchema(options.name, parameters);
  return {
    ...rest,
    source,
    inputSchema,
    validate(args) {
      const parsed = parameters.safeParse(args ?? {});
      if (parsed.success) return { ok: true, value: parsed.data };
      return { ok: false, error: formatZodIssues(parsed.error) };
    },
  };
}

/** The parameters as the JSON Schema of an object, or a {@link ToolDefinitionError} saying what is wrong. */
function checkedInputSchema(name: string, parameters: z.ZodType): JsonSchema {
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    const suggestion = String(name).replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64) || 'my_tool';
    throw new ToolDefinitionError(String(name), `the name must be 1–64 letters, digits, _ or - (models refuse others): try "${suggestion}"`);
  }
  if (typeof (parameters as { safeParse?: unknown } | undefined)?.safeParse !== 'function') {
    throw new ToolDefinitionError(name, 'parameters must be a zod schema, such as z.object({ path: z.string() })');
  }
  let schema: JsonSchema;
  try {
    schema = z.toJSONSchema(parameters, { target: 'draft-7', io: 'input' }) as JsonSchema;
  } catch (error) {
    throw new ToolDefinitionError(name, `its parameters cannot be written as JSON Schema for the model (${errorMessage(error)}): use JSON types, e.g. a date as z.iso.datetime()`);
  }
  delete schema.$schema;
  if (schema.type !== 'object') {
    throw new ToolDefinitionError(name, `parameters must be a zod object schema, as a call's arguments are an object: wrap it, z.object({ value: … }) (got a ${String(schema.type ?? 'non-object')} schema)`);
  }
  return schema;
}

/** `path: reason` per issue, one per line: what the model (or a user) needs to fix the input. */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('\n');
}
