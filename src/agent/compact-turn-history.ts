import { randomUUID } from 'node:crypto';
import type { AgentOutput } from './agent-output.js';
import type { LiveSession } from './session-manager.js';
import type { PlaitedConfig } from '../config/schema.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import { compactionLimit, estimateTokens, summariseOldTurns, truncateOldToolOutputs } from './compact-history.js';

const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * Before a turn's first step: when the history passes `agent.compactAt`, old tool outputs
 * become stubs and, if that is not enough, older turns are summarised by the model. The
 * client is told through `compaction` events. A failed summary leaves the history as it was.
 */
export async function* compactTurnHistory(options: {
  live: LiveSession;
  config: PlaitedConfig['agent'];
  model: ResolvedLanguageModel;
  system: string;
  signal: AbortSignal;
}): AsyncGenerator<AgentOutput> {
  const { live, config } = options;
  const window = config.contextWindow ?? config.contextSize ?? DEFAULT_CONTEXT_WINDOW;
  const limit = compactionLimit(config.compactAt, window);
  if (estimateTokens(live.messages, options.system) <= limit) return;

  const sessionId = live.info.sessionId;
  const compactionId = `compaction-${randomUUID().slice(0, 8)}`;
  yield { type: 'compaction', sessionId, compactionId, status: 'in_progress' };
  let messages = truncateOldToolOutputs(live.messages, config.truncateToolOutputsAfter);
  let summary = 'Old tool outputs were cut to stubs.';
  if (estimateTokens(messages, options.system) > limit) {
    try {
      const result = await summariseOldTurns({ model: options.model, messages, keepTurns: config.compactKeepTurns, signal: options.signal });
      if (result) {
        messages = result.messages;
        summary = result.summary;
      }
    } catch (error) {
      live.messages.splice(0, live.messages.length, ...messages);
      const message = error instanceof Error ? error.message : String(error);
      yield { type: 'compaction', sessionId, compactionId, status: 'failed', error: message };
      return;
    }
  }
  live.messages.splice(0, live.messages.length, ...messages);
  yield { type: 'compaction', sessionId, compactionId, status: 'completed', summary };
}
