import type { ModelMessage } from 'ai';
import type { AgentOutput } from '../contracts/agent-output.js';
import type { HistoryMeasure } from './compact-turn-history.js';
import type { StepOptions } from './stream-model-step.js';
import { MIN_OUTPUT_ROOM } from '../model/prompt-budget.js';
import { historyMeasure, measureStep } from './measure-step.js';
import { noticesUntil } from './notices-until.js';

export type CompactStep = (step: { lastInputTokens: number; added: readonly ModelMessage[]; measure?: HistoryMeasure }) => AsyncGenerator<
  AgentOutput,
  ModelMessage[] | undefined
>;

/**
 * Before a step to a model that measures its prompts (a local one): the system prompt, tool
 * definitions and history are counted in the model's tokens; past `agent.compactAt` of its context
 * the history is compacted (the existing compaction, told the real sizes). When even then too
 * little room is left for an answer, the turn ends: `stop` says why, for the user. Other models
 * pass through untouched.
 */
export async function* fitStepToContext(
  step: StepOptions,
  compact: CompactStep | undefined,
): AsyncGenerator<AgentOutput, { messages?: ModelMessage[]; stop?: string }> {
  // Measuring loads a local model (downloading it the first time): its progress reaches the client.
  const measuring = noticesUntil(() => measureStep(step));
  let budget;
  while (true) {
    const next = await measuring.next();
    if (next.done) {
      budget = next.value;
      break;
    }
    yield { ...next.value, sessionId: step.sessionId ?? '' };
  }
  if (!budget) return {};
  let messages: ModelMessage[] | undefined;
  if (compact) {
    messages = yield* compact({ lastInputTokens: 0, added: [], measure: historyMeasure(step.model, step, budget) });
    if (messages) budget = (await measureStep({ ...step, messages })) ?? budget;
  }
  if (budget.maxOutputTokens >= Math.min(MIN_OUTPUT_ROOM, step.maxOutputTokens ?? MIN_OUTPUT_ROOM)) return { messages };
  return {
    messages,
    stop:
      `The conversation no longer fits the local model's context: the prompt is ${budget.promptTokens} of ` +
      `${budget.contextSize} tokens (system prompt, tools and history), leaving no room for an answer. ` +
      'Start a new session, or raise agent.contextSize (up to the model\'s training context).',
  };
}
