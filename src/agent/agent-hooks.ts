import type { StopReason } from './agent-output.js';
import type { ToolResult, ToolRisk, ToolSource } from '../tools/tool.js';

/**
 * Hooks a user writes in `.plaited/config.ts` (`hooks: { onToolCall, onToolResult, onTurnEnd }`).
 * Each may be one function or a list; a list runs in order. A hook that throws is reported
 * as a notice and treated as "no decision": hooks must not throw, but a bad one never ends a turn.
 */

export interface ToolCallHookEvent {
  sessionId: string;
  cwd: string;
  toolCallId: string;
  toolName: string;
  risk: ToolRisk;
  source: ToolSource;
  /** The validated arguments (a copy: mutating it changes nothing; return `{ args }` instead). */
  args: unknown;
}

/** `{ deny }` refuses the call (the model reads the reason); `{ args }` replaces the arguments (re-validated). */
export type ToolCallDecision = { deny: string } | { args: unknown } | undefined | void;

export interface ToolResultHookEvent extends ToolCallHookEvent {
  result: ToolResult;
}

export interface TurnEndHookEvent {
  sessionId: string;
  cwd: string;
  stopReason: StopReason;
}

export type OnToolCallHook = (event: ToolCallHookEvent) => ToolCallDecision | Promise<ToolCallDecision>;
export type OnToolResultHook = (event: ToolResultHookEvent) => void | Promise<void>;
export type OnTurnEndHook = (event: TurnEndHookEvent) => void | Promise<void>;

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
