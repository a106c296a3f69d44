import type { ModelMessage } from 'ai';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import { streamModelStep } from './stream-model-step.js';

/** One model request without tools, to its final text; a model failure is thrown (callers fall back). */
export async function completeText(options: {
  model: ResolvedLanguageModel;
  system: string;
  messages: ModelMessage[];
  signal: AbortSignal;
}): Promise<string> {
  const step = streamModelStep({ ...options, tools: [] });
  let next = await step.next();
  while (!next.done) next = await step.next();
  if (next.value.error) throw new Error(next.value.error.message);
  return next.value.text.trim();
}
