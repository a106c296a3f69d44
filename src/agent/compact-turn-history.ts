import { randomUUID } from 'node:crypto';
import type { ModelMessage } from 'ai';
import type { AgentOutput } from '../contracts/agent-output.js';
import type { LiveSession } from './session-manager.js';
import type { CompactionSettings } from './agent-settings.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import { compactionLimit, estimateTokens, stubToolOutputsExceptLast, summariseOldTurns, truncateOldToolOutputs } from './compact-history.js';
import { canMeasurePrompt } from '../model/prompt-budget.js';
import { errorMessage } from '../errors/error-message.js';

/** A history's size in the model's own tokens (system prompt and tools included), and the model's context size. */
export interface HistoryMeasure {
  contextSize: number;
  size(messages: readonly ModelMessage[]): Promise<number>;
}

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * Before a turn's first step: when the history passes `agent.compactAt`, old tool outputs
 * become stubs and, if that is not enough, older turns are summarised by the model. The
 * client is told through `compaction` events. A failed summary leaves the history as it was.
 */
export async function* compactTurnHistory(options: {
  live: LiveSession;
  config: CompactionSettings;
  model: ResolvedLanguageModel;
  system: string;
  signal: AbortSignal;
  /** Between steps of a turn: the size of the next request as the model counted the last one (0 = unknown). */
  midTurn?: { lastInputTokens: number; added: readonly ModelMessage[]; measure?: HistoryMeasure };
}): AsyncGenerator<AgentOutput, boolean> {
  const { live, config } = options;
  const measure = options.midTurn?.measure;
  // A model that measures its prompts (a local one) is checked by the loop before every step, with its
  // own tokens and context size: the estimate below would only guess worse.
  if (!measure && canMeasurePrompt(options.model)) return false;
  const limit = measure ? compactionLimit(config.compactAt, measure.contextSize) : contextLimit(config);
  const sizeOf = async (messages: readonly ModelMessage[]) => (measure ? measure.size(messages) : estimateTokens(messages, options.system));
  // Between steps the model's own count of the last request is used: no scan of the history per step.
  const size =
    !measure && options.midTurn && options.midTurn.lastInputTokens > 0
      ? options.midTurn.lastInputTokens + estimateTokens(options.midTurn.added)
      : await sizeOf(live.messages);
  if (size <= limit) return false;

  const sessionId = live.info.sessionId;
  const compactionId = `compaction-${randomUUID().slice(0, 8)}`;
  yield { type: 'compaction', sessionId, compactionId, status: 'in_progress' };
  let messages = truncateOldToolOutputs(live.messages, config.truncateToolOutputsAfter);
  let summary = 'Old tool outputs were cut to stubs.';
  if ((await sizeOf(messages)) > limit) {
    try {
      const result = await summariseOldTurns({ model: options.model, messages, keepTurns: config.compactKeepTurns, signal: options.signal });
      if (result) {
        messages = result.messages;
        summary = result.summary;
      }
    } catch (error) {
      live.messages.splice(0, live.messages.length, ...messages);
      const message = errorMessage(error);
      yield { type: 'compaction', sessionId, compactionId, status: 'failed', error: message };
      return true;
    }
  }
  // Inside one long turn, older turns may not be enough: stub this turn's tool outputs but the latest.
  if (options.midTurn && (await sizeOf(messages)) > limit) {
    messages = stubToolOutputsExceptLast(messages, 1);
    summary += ' Earlier tool outputs of this turn were cut to stubs.';
  }
  live.messages.splice(0, live.messages.length, ...messages);
  yield { type: 'compaction', sessionId, compactionId, status: 'completed', summary };
  return true;
}

export function contextLimit(config: Pick<CompactionSettings, 'compactAt' | 'contextWindow' | 'contextSize'>): number {
  return compactionLimit(config.compactAt, config.contextWindow ?? config.contextSize ?? DEFAULT_CONTEXT_WINDOW);
}
