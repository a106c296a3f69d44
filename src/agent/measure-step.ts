import type { ModelMessage } from 'ai';
import type { PromptBudget } from '../model/prompt-budget.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import { canMeasurePrompt } from '../model/prompt-budget.js';
import { stepCallOptions, type StepOptions } from './stream-model-step.js';

/**
 * A step's prompt measured by the model itself (system prompt, tool definitions and history in
 * the model's own tokens), or undefined for models that cannot say (remote ones: their history
 * is estimated instead). Measured before every step so a prompt that would overflow a local
 * model's context is compacted or the turn ends cleanly.
 */
export async function measureStep(options: StepOptions): Promise<PromptBudget | undefined> {
  const { model } = options;
  if (!canMeasurePrompt(model) || model.specificationVersion !== 'v3') return undefined;
  return model.measurePrompt(await stepCallOptions(model, options));
}

/** Measures other histories of the same step (compaction's candidates); the step's own history is measured once. */
export function historyMeasure(
  model: ResolvedLanguageModel,
  step: StepOptions,
  budget: PromptBudget,
): { contextSize: number; size(messages: readonly ModelMessage[]): Promise<number> } {
  return {
    contextSize: budget.contextSize,
    size: async (messages) => {
      // The loop's copy of the history holds the same message objects as the session's.
      if (messages.length === step.messages.length && messages.every((message, index) => message === step.messages[index])) return budget.promptTokens;
      const measured = await measureStep({ ...step, model, messages: [...messages] });
      return measured?.promptTokens ?? budget.promptTokens;
    },
  };
}
