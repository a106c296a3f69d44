import type { LanguageModelV3FunctionTool, LanguageModelV3Prompt, LanguageModelV3ToolChoice } from '@ai-sdk/provider';
import type { ChatWrapper, Llama, LlamaContextSequence, LlamaModel } from 'node-llama-cpp';
import type { StreamPartWriter } from './stream-part-writer.js';

/** What one local generation needs: a lent context sequence, the prompt, the tools, the sampling options. */
export interface LocalGenerationRequest {
  llama: Llama;
  model: LlamaModel;
  sequence: LlamaContextSequence;
  /** For the generic path; unused by FunctionGemma. */
  chatWrapper?: ChatWrapper;
  prompt: LanguageModelV3Prompt;
  tools: LanguageModelV3FunctionTool[];
  toolChoice?: LanguageModelV3ToolChoice;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  stopSequences?: string[];
  /** JSON output: generated under a grammar (of the schema when given). */
  responseFormat?: { type: 'text' } | { type: 'json'; schema?: unknown };
  signal?: AbortSignal;
  writer: StreamPartWriter;
}
