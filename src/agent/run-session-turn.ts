import type { AgentOutput, StopReason } from '../contracts/agent-output.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { PromptInput } from './agent.js';
import type { AgentCore, QueuedTurnOptions } from './agent-core.js';
import { errorInfo } from './agent-notices.js';
import { compactTurnHistory } from './compact-turn-history.js';
import { runTurnEndHooks } from './end-turn-hooks.js';
import type { LiveSession } from './session-manager.js';
import { startTurn } from './start-turn.js';
import { turnLoopOptions } from './turn-loop-options.js';
import { turnSystemPrompt } from './turn-system-prompt.js';

/**
 * One turn of a session: open it (user message, context), pick the model, build the system
 * prompt, compact the history if it grew too long, run the loop, then the turn-end hooks.
 * Notices raised by hooks are passed on between the loop's events.
 */
export async function* runSessionTurn(
  core: AgentCore,
  live: LiveSession,
  input: PromptInput,
  turn: Omit<QueuedTurnOptions, 'signal'> & { signal: AbortSignal },
): AsyncGenerator<AgentOutput> {
  const { sessionId } = live.info;
  const { overrides, signal } = turn;
  const early: AgentOutput[] = [];
  await core.extensions.ensure(sessionId, (event) => early.push(event));
  const runtime = turn.processOptions.runtime ?? (await core.runtimeFor(live.info.cwd));
  if (turn.announce) yield { type: 'user-message', sessionId, content: input.prompt } satisfies AgentOutput;
  const { context, pending } = startTurn(core, live, input, runtime, signal);
  pending.unshift(...early);

  let model: ResolvedLanguageModel;
  try {
    model = overrides?.model ?? (await core.sessionModel(live.info.options));
  } catch (error) {
    yield { type: 'error', sessionId, error: errorInfo(error, 'model_unavailable') } satisfies AgentOutput;
    return;
  }
  const system = await turnSystemPrompt(core, live, context, overrides);
  // Compaction: only what is sent to the model shrinks; the store keeps every message.
  yield* compactTurnHistory({ live, config: core.settings, model, system, signal });

  const { runTurn } = await import('./agent-loop.js');
  const loop = runTurn(turnLoopOptions(core, live, context, { model, system, overrides }));
  let stopReason: StopReason | 'error';
  while (true) {
    yield* drain(pending);
    const next = await loop.next();
    if (next.done) {
      stopReason = next.value.stopReason;
      break;
    }
    yield next.value;
  }
  yield* drain(pending);
  if (stopReason === 'error') return;
  await runTurnEndHooks(core, context, stopReason);
  yield* drain(pending);
  yield { type: 'turn-end', sessionId, stopReason } satisfies AgentOutput;
}

/** The waiting notices, in order, including any added while one was being passed on. */
function* drain(pending: AgentOutput[]): Generator<AgentOutput> {
  while (pending.length > 0) yield pending.shift()!;
}
