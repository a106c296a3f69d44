import { z } from 'zod';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '../contracts/agent-output.js';
import type { JsonSchema, Tool, ToolContext, ToolPreviewContext, ToolResult, ToolRisk, ToolSource } from '../contracts/tool.js';

export interface DefineToolOptions<S extends z.ZodType> {
  name: string;
  description: string;
  parameters: S;
  risk: ToolRisk;
  source?: ToolSource;
  kind?: ToolKind;
  title?(args: z.output<S>): string;
  locations?(args: z.output<S>, cwd: string): ToolCallLocation[];
  preview?(args: z.output<S>, context: ToolPreviewContext): Promise<ToolCallContent[] | undefined>;
  execute(args: z.output<S>, context: ToolContext): Promise<ToolResult>;
}

/** Builds a Tool from a zod schema: the schema validates arguments and becomes the JSON Schema the model sees. */
export function defineTool<S extends z.ZodType>(options: DefineToolOptions<S>): Tool<z.output<S>> {
  const { parameters, source = 'local', ...rest } = options;
  const inputSchema = z.toJSONSchema(parameters, { target: 'draft-7', io: 'input' }) as JsonSchema;
  delete inputSchema.$schema;
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

/** `path: reason` per issue, one per line: what the model (or a user) needs to fix the input. */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('\n');
}
