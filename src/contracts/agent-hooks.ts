import type { StopReason } from '../contracts/agent-output.js';
import type { ToolResult, ToolRisk, ToolSource } from './tool.js';

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

/** The `hooks` section of a config: each hook one function or a list (run in order). */
export interface ConfigHooks {
  onToolCall?: OnToolCallHook | OnToolCallHook[];
  onToolResult?: OnToolResultHook | OnToolResultHook[];
  onTurnEnd?: OnTurnEndHook | OnTurnEndHook[];
}
