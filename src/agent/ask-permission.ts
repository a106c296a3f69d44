import type { AgentOutput, PermissionDecision, PermissionOption } from './agent-output.js';
import type { PermissionMemory } from './tool-policy.js';
import type { StepToolCall } from './stream-model-step.js';
import type { AnyTool } from '../tools/tool.js';
import { toolCallKind, toolCallTitle } from './tool-call-display.js';

export const PERMISSION_OPTIONS: readonly PermissionOption[] = [
  { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject-always', name: 'Always reject', kind: 'reject_always' },
];

export type PermissionAnswer = 'allow' | 'reject' | 'cancelled';

/**
 * Builds the permission question for one call and a promise of its answer. "Always"
 * answers are remembered in the session's memory; cancelling the turn answers `cancelled`.
 */
export function askPermission(options: {
  sessionId: string;
  call: StepToolCall;
  tool: AnyTool;
  signal: AbortSignal;
  permissions: PermissionMemory;
}): { event: AgentOutput; answer: Promise<PermissionAnswer>; withdraw(): void } {
  const { call, tool, signal, permissions } = options;
  // Lets an adapter take the question back from its client once it no longer matters.
  const relevance = new AbortController();
  const withdraw = () => relevance.abort();
  if (signal.aborted) withdraw();
  else signal.addEventListener('abort', withdraw, { once: true });
  let respond!: (decision: PermissionDecision) => void;
  const answer = new Promise<PermissionAnswer>((resolve) => {
    const onAbort = () => resolve('cancelled');
    if (signal.aborted) return resolve('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
    respond = (decision) => {
      signal.removeEventListener('abort', onAbort);
      if (decision.outcome === 'cancelled') return resolve('cancelled');
      const option = PERMISSION_OPTIONS.find((candidate) => candidate.optionId === decision.optionId);
      switch (option?.kind) {
        case 'allow_always':
          permissions.allowAlways.add(tool.name);
          return resolve('allow');
        case 'allow_once':
          return resolve('allow');
        case 'reject_always':
          permissions.rejectAlways.add(tool.name);
          return resolve('reject');
        default:
          return resolve('reject');
      }
    };
  });
  const event: AgentOutput = {
    type: 'permission-request',
    sessionId: options.sessionId,
    toolCallId: call.toolCallId,
    title: toolCallTitle(tool, call),
    kind: toolCallKind(tool),
    input: call.input,
    options: [...PERMISSION_OPTIONS],
    respond: (decision) => {
      signal.removeEventListener('abort', withdraw);
      respond(decision);
    },
    signal: relevance.signal,
  };
  return { event, answer, withdraw };
}
