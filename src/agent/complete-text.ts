import type { ModelMessage } from 'ai';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';

/** One model request without tools, to its final text; a model failure is thrown (callers fall back). */
export async function completeText(options: {
  model: ResolvedLanguageModel;
  system: string;
  messages: ModelMessage[];
  signal: AbortSignal;
  maxOutputTokens?: number;
}): Promise<string> {
  // Imported on use: the model layer (the `ai` package) stays out of the CLI's start-up.
  const { streamModelStep } = await import('./stream-model-step.js');
  const step = streamModelStep({ ...options, tools: [] });
  let next = await step.next();
  while (!next.done) next = await step.next();
  if (next.value.error) throw new Error(next.value.error.message);
  return next.value.text.trim();
}
