import { jsonSchema, streamText, type ModelMessage, type ToolSet } from 'ai';
import type { AgentErrorInfo, StopReason } from './agent-output.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { AnyTool } from '../tools/tool.js';

export interface StepToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Set when the model's call could not be parsed (bad JSON). */
  invalidReason?: string;
}

export interface StepOutcome {
  text: string;
  reasoning: string;
  toolCalls: StepToolCall[];
  stopReason: StopReason;
  usage: { inputTokens: number; outputTokens: number };
  error?: AgentErrorInfo;
}

export type StepDelta = { type: 'text-delta'; text: string } | { type: 'thought-delta'; text: string };

/**
 * One model request through the AI SDK. Tools are declared without `execute`, so the
 * SDK stops after the step and hands the calls back: the loop owns policy, permission
 * and execution. Failures come back in the outcome, never thrown.
 */
export async function* streamModelStep(options: {
  model: ResolvedLanguageModel;
  system: string | undefined;
  messages: ModelMessage[];
  tools: readonly AnyTool[];
  signal: AbortSignal;
  temperature?: number;
  maxOutputTokens?: number;
}): AsyncGenerator<StepDelta, StepOutcome> {
  const outcome: StepOutcome = {
    text: '',
    reasoning: '',
    toolCalls: [],
    stopReason: 'end_turn',
    usage: { inputTokens: 0, outputTokens: 0 },
  };
  const toolSet: ToolSet = {};
  for (const tool of options.tools) {
    toolSet[tool.name] = { description: tool.description, inputSchema: jsonSchema(tool.inputSchema) };
  }

  try {
    const result = streamText({
      model: options.model,
      system: options.system,
      messages: options.messages,
      tools: options.tools.length > 0 ? toolSet : undefined,
      abortSignal: options.signal,
      temperature: options.temperature,
      maxOutputTokens: options.maxOutputTokens,
      maxRetries: 1,
      // The SDK's own error logging would write to stdout/stderr; we report errors as events.
      onError: () => {},
    });
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'text-delta':
          if (part.text) {
            outcome.text += part.text;
            yield { type: 'text-delta', text: part.text };
          }
          break;
        case 'reasoning-delta':
          if (part.text) {
            outcome.reasoning += part.text;
            yield { type: 'thought-delta', text: part.text };
          }
          break;
        case 'tool-call':
          outcome.toolCalls.push({
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: part.input ?? {},
            ...('invalid' in part && part.invalid && part.error !== undefined
              ? { invalidReason: invalidReasonOf(part.error, part.toolName) }
              : {}),
          });
          break;
        case 'finish-step':
          outcome.usage.inputTokens += part.usage.inputTokens ?? 0;
          outcome.usage.outputTokens += part.usage.outputTokens ?? 0;
          outcome.stopReason = mapFinishReason(part.finishReason);
          break;
        case 'abort':
          outcome.stopReason = 'cancelled';
          break;
        case 'error':
          if (!options.signal.aborted) outcome.error = toErrorInfo(part.error);
          break;
        default:
          break;
      }
    }
  } catch (error) {
    if (!options.signal.aborted) outcome.error = toErrorInfo(error);
  }
  if (options.signal.aborted) outcome.stopReason = 'cancelled';
  return outcome;
}

function mapFinishReason(reason: string): StopReason {
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'content-filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

function invalidReasonOf(error: unknown, toolName: string): string | undefined {
  const name = error instanceof Error ? error.name : '';
  // An unknown tool is reported by the loop with the list of real tools.
  if (name === 'AI_NoSuchToolError') return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return `could not parse the arguments of "${toolName}" as JSON matching its schema (${message})`;
}

export function toErrorInfo(error: unknown): AgentErrorInfo {
  const message = error instanceof Error ? error.message : String(error);
  const code =
    error instanceof Error && 'code' in error && typeof error.code === 'string'
      ? error.code
      : error instanceof Error && error.name.startsWith('AI_')
        ? 'model_call_failed'
        : 'internal_error';
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return { code, message: `${message}${cause}` };
}
