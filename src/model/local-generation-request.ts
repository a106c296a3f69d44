import type { LanguageModelV3FinishReason, LanguageModelV3FunctionTool, LanguageModelV3Prompt, LanguageModelV3ToolChoice } from '@ai-sdk/provider';
import type { ChatWrapper, Llama, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import type { StreamPartWriter } from './stream-part-writer.js';

/** What one local generation needs: the prompt, the tools, the sampling options. */
export interface LocalGenerationRequest {
  llama: Llama;
  model: LlamaModel;
  /** For the generic path; unused by FunctionGemma. */
  chatWrapper?: ChatWrapper;
  prompt: LanguageModelV3Prompt;
  tools: LanguageModelV3FunctionTool[];
  toolChoice?: LanguageModelV3ToolChoice;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  stopSequences?: string[];
  /** JSON output: generated under a grammar (of the schema when given). */
  responseFormat?: { type: 'text' } | { type: 'json'; schema?: unknown };
  signal?: AbortSignal;
}

/**
 * A generation ready to run: the prompt as the model's tokens (known before any evaluation, so the
 * budget can be checked and the sequence prefilled), and the generation itself on a lent sequence.
 */
export interface PreparedGeneration {
  tokens: Token[];
  generate(run: { sequence: LlamaContextSequence; maxTokens: number; writer: StreamPartWriter }): Promise<LanguageModelV3FinishReason>;
}

/** The tools the model may call: none under `toolChoice` none, only the named one under a named choice, else all. */
export function offeredTools({ tools, toolChoice }: Pick<LocalGenerationRequest, 'tools' | 'toolChoice'>): LanguageModelV3FunctionTool[] {
  if (toolChoice?.type === 'none') return [];
  if (toolChoice?.type === 'tool') return tools.filter((tool) => tool.name === toolChoice.toolName);
  return tools;
}

/** The abort and sampling options node-llama-cpp's completion and chat calls share. */
export function samplingOptions(request: LocalGenerationRequest, maxTokens: number) {
  return {
    signal: request.signal,
    stopOnAbortSignal: true,
    maxTokens,
    temperature: request.temperature,
    topP: request.topP,
    topK: request.topK,
    seed: request.seed,
  };
}

/** node-llama-cpp ends a generation stopped by the abort signal normally: this throws its reason instead. */
export function throwIfAborted(stopReason: string | undefined, signal: AbortSignal | undefined): void {
  if (stopReason === 'abort') throw signal?.reason ?? new Error('aborted');
}

/** node-llama-cpp's stop reason as a finish reason: `tool-calls` when any call was emitted, `length` at max tokens, else `stop`. */
export function finishReasonOf(stopReason: string | undefined, calls: number): LanguageModelV3FinishReason {
  if (calls > 0) return { unified: 'tool-calls', raw: stopReason };
  return { unified: stopReason === 'maxTokens' ? 'length' : 'stop', raw: stopReason };
}
