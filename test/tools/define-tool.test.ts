import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolDefinitionError } from '../../src/tools/tool-definition-error.js';
import { textResult } from '../../src/tools/tool-result.js';

const execute = async () => textResult('ok');
const refusal = (define: () => unknown): ToolDefinitionError => {
  try {
    define();
  } catch (error) {
    if (ToolDefinitionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('defineTool accepted it');
};

describe('defineTool refuses what a model could not use, naming the tool and the fix', () => {
  it('a name the providers refuse', () => {
    const error = refusal(() => defineTool({ name: 'look up!', description: 'd', parameters: z.object({}), risk: 'read', execute }));
    expect(error).toMatchObject({ code: 'invalid_tool_definition', tool: 'look up!' });
    expect(error.message).toBe('defineTool "look up!": the name must be 1–64 letters, digits, _ or - (models refuse others): try "look_up"');
    expect(refusal(() => defineTool({ name: 'n'.repeat(65), description: 'd', parameters: z.object({}), risk: 'read', execute })).code).toBe('invalid_tool_definition');
  });

  it('parameters that are not an object schema, or not zod at all', () => {
    expect(refusal(() => defineTool({ name: 'shout', description: 'd', parameters: z.string(), risk: 'read', execute })).message).toMatch(
      /^defineTool "shout": parameters must be a zod object schema.*z\.object\(\{ value: … \}\) \(got a string schema\)$/,
    );
    const plain = { type: 'object', properties: {} } as unknown as z.ZodObject;
    expect(refusal(() => defineTool({ name: 'raw', description: 'd', parameters: plain, risk: 'read', execute })).message).toMatch(/parameters must be a zod schema/);
  });

  it('parameters JSON Schema cannot express (a Date)', () => {
    const error = refusal(() => defineTool({ name: 'remind', description: 'd', parameters: z.object({ at: z.date() }), risk: 'read', execute }));
    expect(error.message).toMatch(/^defineTool "remind": its parameters cannot be written as JSON Schema for the model \(.*Date.*\): use JSON types, e\.g\. a date as z\.iso\.datetime\(\)$/);
  });

  it('accepts an object schema and gives the model its JSON Schema', () => {
    const tool = defineTool({ name: 'remind-me_2', description: 'd', parameters: z.object({ at: z.iso.datetime() }), risk: 'read', execute });
    expect(tool.inputSchema).toMatchObject({ type: 'object', required: ['at'] });
  });
});
