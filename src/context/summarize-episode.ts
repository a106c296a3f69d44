import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import { completeText } from '../agent/complete-text.js';
import type { EpisodeInput, EpisodeText } from './episodic-memory.js';

export const EPISODE_SYSTEM = 'You write the episodic memory of a coding agent. Summarise the turn below in one paragraph: what the user wanted, what was done, the outcome.';
export const REFLECTION_SYSTEM = 'You reflect on a coding agent\'s turn. In one or two sentences: what should the agent do differently next time?';

/** The episode paragraph (and, with reflection, a second pass) written by the model. */
export async function summarizeEpisode(
  model: ResolvedLanguageModel,
  input: EpisodeInput,
  options: { reflection: boolean; signal: AbortSignal },
): Promise<EpisodeText> {
  const messages = [{ role: 'user' as const, content: [{ type: 'text' as const, text: input.transcript.slice(-12_000) }] }];
  const summary = await completeText({ model, system: EPISODE_SYSTEM, messages, signal: options.signal });
  if (!options.reflection) return { summary };
  const reflection = await completeText({ model, system: REFLECTION_SYSTEM, messages, signal: options.signal }).catch(() => undefined);
  return { summary, ...(reflection ? { reflection } : {}) };
}
