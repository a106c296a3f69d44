import type { OnToolCallHook, ToolCallHookEvent } from '../contracts/agent-hooks.js';
import type { AgentExtension, TurnContext } from './agent-extension.js';
import { noticeOf } from './agent-notices.js';

/** Runs the hooks of `src/contracts/agent-hooks.ts`: one function or a list, in order. */
export function hookList<F>(hooks: F | F[] | undefined): F[] {
  if (!hooks) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/**
 * Runs the `onToolCall` hooks in order; the first that returns a decision wins and the
 * rest are not asked. Throwing hooks are reported through `onError` and skipped.
 */
export async function decideToolCall(
  hooks: readonly OnToolCallHook[],
  event: ToolCallHookEvent,
  onError: (error: unknown) => void,
): Promise<{ deny: string } | { args: unknown } | undefined> {
  for (const hook of hooks) {
    try {
      const decision = await hook({ ...event, args: structuredCloneSafe(event.args) });
      if (decision && typeof decision === 'object') {
        if ('deny' in decision) return { deny: String(decision.deny) };
        if ('args' in decision) return { args: decision.args };
      }
    } catch (error) {
      onError(error);
    }
  }
  return undefined;
}

function structuredCloneSafe(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

/**
 * The extensions' `onToolCall` hooks in their order, bound to the turn: one that throws is
 * reported as a notice naming its extension and decides nothing.
 */
export function toolCallHooks(extensions: readonly AgentExtension[], context: TurnContext): OnToolCallHook[] {
  return extensions.flatMap((extension) => {
    const decide = extension.onToolCall?.bind(extension);
    if (!decide) return [];
    return [
      async (event: ToolCallHookEvent) => {
        try {
          return await decide(context, event);
        } catch (error) {
          context.emit(noticeOf(context.sessionId, extension.name, 'onToolCall', error));
          return undefined;
        }
      },
    ];
  });
}
