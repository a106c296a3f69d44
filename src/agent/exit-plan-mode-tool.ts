import { z } from 'zod';
import type { PermissionDecision, PermissionOption } from '../contracts/agent-output.js';
import type { SessionMode } from './agent.js';
import { defineTool } from '../tools/define-tool.js';
import type { Tool } from '../contracts/tool.js';
import { errorResult, textResult } from '../tools/tool-result.js';

export const EXIT_PLAN_MODE_OPTIONS: readonly PermissionOption[] = [
  { optionId: 'mode:default', name: 'Execute, asking before edits and commands (Default)', kind: 'allow_once' },
  { optionId: 'mode:accept-edits', name: 'Execute, accepting edits (Accept edits)', kind: 'allow_always' },
  { optionId: 'stay-in-plan', name: 'Keep planning', kind: 'reject_once' },
];

/**
 * `exit_plan_mode`: offered in plan mode only. The agent presents its plan and asks the
 * user, through a permission request whose options are the modes, to switch and execute.
 */
export function createExitPlanModeTool(options: {
  setMode(sessionId: string, mode: SessionMode): Promise<void>;
}): Tool<{ plan: string }> {
  return defineTool({
    name: 'exit_plan_mode',
    description:
      'In plan mode: present your finished plan and ask the user to leave plan mode so you can carry it out. ' +
      'Call it once the plan is ready; the user picks the mode to execute in, or keeps you planning.',
    parameters: z.object({ plan: z.string().min(1).describe('The plan, in Markdown') }),
    risk: 'read',
    kind: 'switch_mode',
    title: () => 'Ready to code?',
    async execute(args, context) {
      const decision = await new Promise<PermissionDecision>((resolve) => {
        if (context.signal.aborted) return resolve({ outcome: 'cancelled' });
        const onAbort = () => resolve({ outcome: 'cancelled' });
        context.signal.addEventListener('abort', onAbort, { once: true });
        context.emit({
          type: 'permission-request',
          sessionId: context.sessionId,
          toolCallId: context.toolCallId,
          title: 'Ready to code?',
          kind: 'switch_mode',
          input: args,
          options: [...EXIT_PLAN_MODE_OPTIONS],
          signal: context.signal,
          respond: (answer) => {
            context.signal.removeEventListener('abort', onAbort);
            resolve(answer);
          },
        });
      });
      if (decision.outcome === 'cancelled') return errorResult('Cancelled: still in plan mode.');
      const mode = decision.optionId.startsWith('mode:') ? (decision.optionId.slice(5) as SessionMode) : undefined;
      if (mode !== 'default' && mode !== 'accept-edits') {
        return textResult('The user wants to keep planning: you are still in plan mode. Refine the plan, then ask again.');
      }
      await options.setMode(context.sessionId, mode);
      return textResult(`The user approved the plan; the session is now in "${mode}" mode. Carry out the plan.`);
    },
  });
}
