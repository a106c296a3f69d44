import { describe, expect, it } from 'vitest';
import { boundToolCall, MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_ARGUMENT_DEPTH, toolArgumentTextProblem } from '../../src/agent/tool-argument-limits.js';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

describe('tool argument limits', () => {
  it('refuses text nested past the depth limit or larger than the size limit, naming the limit', () => {
    expect(toolArgumentTextProblem('{"a":[[1]],"b":"[[[[[[[[["}')).toBeUndefined();
    expect(toolArgumentTextProblem(`{"x":${'['.repeat(MAX_TOOL_ARGUMENT_DEPTH)}${']'.repeat(MAX_TOOL_ARGUMENT_DEPTH)}}`)).toContain(`deeper than ${MAX_TOOL_ARGUMENT_DEPTH}`);
    expect(toolArgumentTextProblem(JSON.stringify({ c: 'é'.repeat(MAX_TOOL_ARGUMENT_BYTES / 2) }))).toContain(`larger than ${MAX_TOOL_ARGUMENT_BYTES}`);
  });

  it('drops parsed arguments over a bound (50,000 levels: no recursion anywhere) and marks the call invalid', () => {
    const call = boundToolCall({ toolCallId: 't', toolName: 'write_file', input: { path: 'a', extra: nested(50_000) } });
    expect(call.input).toEqual({});
    expect(call.invalidReason).toContain('tool-argument depth limit');
    const fine = { toolCallId: 't', toolName: 'write_file', input: { path: 'a', extra: nested(10) } };
    expect(boundToolCall(fine)).toBe(fine);
  });
});
