import { PlaitedError } from '../errors/plaited-error.js';

/** A `defineTool` call a model could not use: a bad name, or parameters that are not a zod object schema. */
export class ToolDefinitionError extends PlaitedError<'invalid_tool_definition'> {
  /** The name the definition gave. */
  readonly tool: string;

  constructor(tool: string, problem: string) {
    super('invalid_tool_definition', `defineTool "${tool}": ${problem}`);
    this.name = 'ToolDefinitionError';
    this.tool = tool;
  }

  /** Works across duplicate copies of the package, unlike `instanceof`. */
  static override isInstance(error: unknown): error is ToolDefinitionError {
    return error instanceof Error && error.name === 'ToolDefinitionError' && (error as ToolDefinitionError).code === 'invalid_tool_definition';
  }
}
