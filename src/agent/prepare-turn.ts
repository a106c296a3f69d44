import type { AgentOutput } from '../contracts/agent-output.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { PromptInput } from './agent.js';
import type { AgentCore } from './agent-core.js';
import { errorInfo } from './agent-notices.js';
import type { LiveSession } from './session-manager.js';
import { startTurn, type StartedTurn } from './start-turn.js';
import type { Runtime } from '../contracts/runtime.js';
import { turnSystemPrompt } from './turn-system-prompt.js';
import type { TurnOverrides } from './turn-overrides.js';

/** A turn ready for the loop: its context, the model it starts on and its system prompt. */
export interface PreparedTurn extends StartedTurn {
  model: ResolvedLanguageModel;
  system: string;
}

/** Opens the turn (user message stored), picks the model and builds the system prompt; a model that cannot load is an `error` event. */
export async function prepareTurn(
  core: AgentCore,
  live: LiveSession,
  input: PromptInput,
  turn: { runtime: Runtime; signal: AbortSignal; overrides: TurnOverrides | undefined; sessionModel: () => Promise<ResolvedLanguageModel> },
): Promise<PreparedTurn | { error: AgentOutput }> {
  const started = await startTurn(core, live, input, turn.runtime, turn.signal, turn.overrides?.parentSessionId);
  let model: ResolvedLanguageModel;
  try {
    model = turn.overrides?.model ?? (await turn.sessionModel());
  } catch (error) {
    return { error: { type: 'error', sessionId: live.info.sessionId, error: errorInfo(error, 'model_unavailable') } };
  }
  const system = await turnSystemPrompt(core, live, started.context, turn.overrides);
  return { ...started, model, system };
}
