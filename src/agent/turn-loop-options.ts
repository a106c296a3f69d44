import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { AgentCore } from './agent-core.js';
import { permissionsOf } from './agent-core.js';
import type { TurnContext } from './agent-extension.js';
import { noticeOf, runHooksInOrder } from './agent-notices.js';
import type { TurnOptions } from './agent-loop.js';
import { compactTurnHistory } from './compact-turn-history.js';
import { dropOverflowingPrompt } from './drop-overflowing-prompt.js';
import { offeredTools } from './offered-tools.js';
import { toolCallHooks } from './agent-hooks.js';
import type { LiveSession } from './session-manager.js';
import type { TurnOverrides } from './turn-overrides.js';

/** What the loop needs for one session's turn: its history, tools, rules, limits, and where each step's messages go. */
export function turnLoopOptions(
  core: AgentCore,
  live: LiveSession,
  context: TurnContext,
  turn: { model: ResolvedLanguageModel; system: string; overrides: TurnOverrides | undefined; sessionModel: () => Promise<ResolvedLanguageModel> },
): TurnOptions {
  const { sessionId } = live.info;
  const { settings } = core;
  const { model, system, overrides } = turn;
  return {
    sessionId,
    model,
    // A model picked mid-turn (ACP config option, a client's routing) takes over at the next step.
    modelForStep: overrides?.model ? undefined : turn.sessionModel,
    system,
    messages: live.messages,
    tools: () => offeredTools(core, live, context, overrides),
    policy: core.policy,
    mode: () => live.info.mode,
    permissions: permissionsOf(core, live),
    runtime: context.runtime,
    allowedRoots: [...settings.allowedRoots, ...(live.info.options?.additionalDirectories ?? [])],
    signal: context.signal,
    maxSteps: settings.maxSteps,
    temperature: settings.temperature,
    maxOutputTokens: settings.maxOutputTokens,
    maxReplyBytes: settings.maxReplyBytes,
    maxToolResultChars: settings.maxToolResultChars,
    toolCallFormat: settings.toolCallFormat,
    hooks: { onToolCall: toolCallHooks(core.extensions.list, context) },
    onHookError: (hook, error) => context.emit(noticeOf(sessionId, 'extensions', hook, error)),
    onStepMessages: async (messages) => {
      // Streamed text first: the messages that end the step then drop its draft in their transaction.
      await live.running?.recorder?.flush();
      await live.store.appendMessages(sessionId, messages);
      live.messages.push(...messages);
    },
    onPromptOverflow: () => dropOverflowingPrompt(live),
    onToolResult: (call) =>
      runHooksInOrder(core.extensions.list, 'onToolResult', (extension) => extension.onToolResult?.(context, call), context.emit, sessionId),
    steering: live.running?.steering,
    runningCalls: core.runningCalls,
    background: core.background,
    compact: async function* (step) {
      const compacted = yield* compactTurnHistory({ live, config: settings, model, system, signal: context.signal, midTurn: step });
      return compacted ? [...live.messages] : undefined;
    },
  };
}
