import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';

/**
 * What a model with a fixed context (a local one) says about a prompt before it is sent: its
 * size in the model's own tokens, and the room the context leaves for the answer. The agent asks
 * before every step, so a history that would not fit is compacted, or the turn ends cleanly,
 * instead of failing inside the model.
 */
export interface PromptBudget {
  /** The prompt (system prompt, tool definitions, history) as the model will evaluate it. */
  promptTokens: number;
  /** Tokens one sequence of the model's context holds. */
  contextSize: number;
  /** Tokens the answer may use: the output cap, or less when the context has less room. */
  maxOutputTokens: number;
}

export type PromptBudgetCall = Pick<LanguageModelV3CallOptions, 'prompt' | 'tools' | 'toolChoice' | 'maxOutputTokens' | 'responseFormat'>;

export interface PromptMeasuringModel {
  measurePrompt(call: PromptBudgetCall): Promise<PromptBudget>;
}

export function canMeasurePrompt(model: unknown): model is PromptMeasuringModel {
  return typeof model === 'object' && model !== null && typeof (model as Partial<PromptMeasuringModel>).measurePrompt === 'function';
}

/**
 * The default output cap of local models. A normal answer, or a tool call writing a file of a
 * few hundred lines, stays under it; a degenerate model (one that never emits end-of-turn)
 * stops after it with `max_tokens` instead of generating until the context overflows.
 */
export const DEFAULT_LOCAL_MAX_OUTPUT_TOKENS = 2048;

/** The tokens the answer gets: the cap, or what the context leaves after the prompt (a small margin kept for the end). */
export function outputRoom(promptTokens: number, contextSize: number, cap: number): number {
  return Math.max(0, Math.min(cap, contextSize - promptTokens - CONTEXT_MARGIN));
}

/** Tokens kept free at the end of the context: the last prompt token and the end of a function call are evaluated there. */
export const CONTEXT_MARGIN = 8;

/** Under this much room for the answer a step is not worth starting: the agent compacts or ends the turn. */
export const MIN_OUTPUT_ROOM = 64;
