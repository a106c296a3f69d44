import type { StepToolCall } from './stream-model-step.js';
import { textNestsDeeperThan, valueNestsDeeperThan } from './json-nesting-depth.js';

/**
 * Bounds on the arguments a model sends with a tool call, applied before they are parsed,
 * stored or validated: the model is as untrusted as a client. Real arguments nest under ten
 * levels and stay far below a model's output cap; thousands of levels overflow every
 * recursive walker downstream (JSON.stringify with a replacer, zod), which used to wedge the
 * session. A call over a bound gets an error result naming it, and the turn goes on.
 */
export const MAX_TOOL_ARGUMENT_DEPTH = 128;
/** 1 MiB: several times what a model can write in one reply (~128k output tokens ≈ 512 KB). */
export const MAX_TOOL_ARGUMENT_BYTES = 1024 * 1024;

/** Why raw argument text is refused, or `undefined` when it is within the bounds. */
export function toolArgumentTextProblem(text: string): string | undefined {
  // Characters first: cheap, and a UTF-8 byte count is at least the character count.
  if (text.length > MAX_TOOL_ARGUMENT_BYTES || Buffer.byteLength(text, 'utf8') > MAX_TOOL_ARGUMENT_BYTES) {
    return `the arguments are larger than ${MAX_TOOL_ARGUMENT_BYTES} bytes (the tool-argument size limit); send smaller pieces`;
  }
  if (textNestsDeeperThan(text, MAX_TOOL_ARGUMENT_DEPTH)) {
    return `the arguments are nested deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels (the tool-argument depth limit); flatten them`;
  }
  return undefined;
}

/** The same bounds for arguments a provider already parsed (older models, text tool calls). */
export function toolArgumentValueProblem(value: unknown): string | undefined {
  if (valueNestsDeeperThan(value, MAX_TOOL_ARGUMENT_DEPTH)) {
    return `the arguments are nested deeper than ${MAX_TOOL_ARGUMENT_DEPTH} levels (the tool-argument depth limit); flatten them`;
  }
  // Depth is bounded now, so measuring the size by serializing cannot overflow the stack.
  return toolArgumentTextProblem(JSON.stringify(value) ?? '');
}

/** The call as the loop handles it: arguments over a bound are dropped and the call marked invalid (it gets an error result). */
export function boundToolCall(call: StepToolCall): StepToolCall {
  if (call.invalidReason) return call;
  const problem = toolArgumentValueProblem(call.input);
  return problem ? { ...call, input: {}, invalidReason: problem } : call;
}
