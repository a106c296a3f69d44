import type { OnToolCallHook, ToolCallHookEvent } from '../contracts/agent-hooks.js';

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
