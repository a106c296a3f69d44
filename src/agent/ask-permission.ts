import type { AgentOutput, PermissionDecision, PermissionOption, ToolCallContent } from '../contracts/agent-output.js';
import type { StepToolCall } from './stream-model-step.js';
import type { AnyTool } from '../contracts/tool.js';
import { toolCallKind, toolCallTitle } from './tool-call-display.js';
import { permissionChoices, type PermissionChoice } from './permission-choices.js';

/** The kinds of answer a question offers, in their usual order (a call's own options name its scope). */
export const PERMISSION_OPTIONS: readonly PermissionOption[] = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject-always', name: 'Always reject', kind: 'reject_always' },
];

/** `reason`: a reject no person chose says why (see PermissionDecision). */
export type PermissionAnswer = { outcome: 'allow' } | { outcome: 'reject'; reason?: string } | { outcome: 'cancelled' };

/** Keeps the rules an "always" or "for this session" answer names. */
export type RememberChoice = (remember: NonNullable<PermissionChoice['remember']>) => void;

/**
 * Builds the permission question for one call and a promise of its answer. Its options say
 * what they cover (`permission-choices.ts`); the rules of the one picked are handed to
 * `remember`. Cancelling the turn answers `cancelled`.
 */
export function askPermission(options: {
  sessionId: string;
  call: StepToolCall;
  tool: AnyTool;
  cwd: string;
  protectedWrite: boolean;
  signal: AbortSignal;
  remember: RememberChoice;
  /** The tool's preview of the call (see Tool.preview). */
  content?: ToolCallContent[];
}): { event: AgentOutput; answer: Promise<PermissionAnswer>; withdraw(): void } {
  const { call, tool, signal } = options;
  const choices = permissionChoices(tool, call.input, options.cwd, { protectedWrite: options.protectedWrite });
  // Lets an adapter take the question back from its client once it no longer matters.
  const relevance = new AbortController();
  const withdraw = () => relevance.abort();
  if (signal.aborted) withdraw();
  else signal.addEventListener('abort', withdraw, { once: true });
  let respond!: (decision: PermissionDecision) => void;
  const answer = new Promise<PermissionAnswer>((resolve) => {
    const onAbort = () => resolve({ outcome: 'cancelled' });
    if (signal.aborted) return resolve({ outcome: 'cancelled' });
    signal.addEventListener('abort', onAbort, { once: true });
    respond = (decision) => {
      signal.removeEventListener('abort', onAbort);
      if (decision.outcome === 'cancelled') return resolve({ outcome: 'cancelled' });
      const choice = choices.find((candidate) => candidate.option.optionId === decision.optionId);
      const rejected = { outcome: 'reject' as const, ...(decision.reason ? { reason: decision.reason } : {}) };
      if (!choice) return resolve(rejected);
      if (choice.remember) options.remember(choice.remember);
      return resolve(choice.option.kind.startsWith('allow') ? { outcome: 'allow' } : rejected);
    };
  });
  const event: AgentOutput = {
    type: 'permission-request',
    sessionId: options.sessionId,
    toolCallId: call.toolCallId,
    title: toolCallTitle(tool, call),
    kind: toolCallKind(tool),
    input: call.input,
    ...(options.content ? { content: options.content } : {}),
    options: choices.map((choice) => choice.option),
    respond: (decision) => {
      signal.removeEventListener('abort', withdraw);
      respond(decision);
    },
    signal: relevance.signal,
  };
  return { event, answer, withdraw };
}
