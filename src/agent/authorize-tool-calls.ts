import type { AgentOutput, ToolCallContent } from '../contracts/agent-output.js';
import type { SessionMode } from './agent.js';
import type { OnToolCallHook } from '../contracts/agent-hooks.js';
import type { PermissionContext, ToolPolicy } from './tool-policy.js';
import type { PermissionRuleEntry } from '../storage/permission-rule-file.js';
import type { StepToolCall } from './stream-model-step.js';
import type { SteeringQueue } from './steering-queue.js';
import type { AnyTool, ToolResult } from '../contracts/tool.js';
import { decideToolCall } from './agent-hooks.js';
import { askPermission, type PermissionAnswer, type RememberChoice } from './ask-permission.js';
import { touchesProtectedPath } from './protected-write.js';

export const SUPERSEDED = 'Not run: superseded by new instruction.';

export interface ApprovedCall {
  call: StepToolCall;
  tool: AnyTool;
  args: unknown;
}

/**
 * Decides each call of a step, in order: unknown tool or bad arguments → error; then the
 * `onToolCall` hooks (deny, or rewrite the arguments); then policy; then the user, when
 * policy asks. A steering message that arrives before a call is approved supersedes it.
 */
export async function* authorizeToolCalls(options: {
  sessionId: string;
  cwd: string;
  calls: readonly StepToolCall[];
  byName: ReadonlyMap<string, AnyTool>;
  policy: ToolPolicy;
  mode: SessionMode;
  permissions: PermissionContext;
  signal: AbortSignal;
  hooks: readonly OnToolCallHook[];
  steering?: SteeringQueue;
  onHookError(error: unknown): void;
  /** The call's preview for its question (Tool.preview with the turn's runtime); a preview that fails shows nothing. */
  preview?(tool: AnyTool, args: unknown): Promise<ToolCallContent[] | undefined>;
}): AsyncGenerator<AgentOutput, { approved: ApprovedCall[]; results: Map<string, ToolResult> }> {
  const { sessionId, signal, steering } = options;
  const results = new Map<string, ToolResult>();
  const approved: ApprovedCall[] = [];
  const fail = (call: StepToolCall, text: string) => results.set(call.toolCallId, { content: [{ type: 'text', text }], isError: true });

  for (const call of options.calls) {
    const prepared = prepareCall(call, options.byName, options.mode);
    if ('error' in prepared) {
      fail(call, prepared.error);
      continue;
    }
    let { args } = prepared;
    const { tool } = prepared;
    if (options.hooks.length > 0) {
      const decision = await decideToolCall(
        options.hooks,
        { sessionId, cwd: options.cwd, toolCallId: call.toolCallId, toolName: tool.name, risk: tool.risk, source: tool.source, args },
        options.onHookError,
      );
      if (decision && 'deny' in decision) {
        fail(call, `Denied by a hook: ${decision.deny}`);
        continue;
      }
      if (decision && 'args' in decision) {
        const validated = tool.validate(decision.args);
        if (!validated.ok) {
          fail(call, `A hook rewrote the arguments of "${tool.name}" into invalid ones:\n${validated.error}`);
          continue;
        }
        args = validated.value;
      }
    }
    const protectedWrite = touchesProtectedPath(tool, args, options.cwd);
    const remembered = rememberedRules(options.permissions, options.cwd);
    let decision = options.policy.decideCall({ tool, args, cwd: options.cwd }, options.mode, remembered.rules, protectedWrite);
    // An unreadable rules file may hold a rejection: nothing that would change something runs unasked.
    if (remembered.unreadable && decision.action === 'run' && tool.risk !== 'read') decision = { action: 'ask' };
    if (decision.action === 'refuse') {
      fail(call, `Refused: ${decision.reason}.`);
      continue;
    }
    if (decision.action === 'ask' && !signal.aborted) {
      if (steering?.pending) {
        fail(call, SUPERSEDED);
        continue;
      }
      const notices: AgentOutput[] = [];
      // Why it asks again, when an "always" for another server of this name would have covered it.
      const why: ToolCallContent[] = decision.why ? [{ type: 'text', text: decision.why }] : [];
      const content = [...why, ...((await options.preview?.(tool, args).catch(() => undefined)) ?? [])];
      const asked = askPermission({
        sessionId,
        call: { ...call, input: args },
        tool,
        cwd: options.cwd,
        protectedWrite,
        signal,
        ...(content.length > 0 ? { content } : {}),
        remember: (choice) => {
          const problem = remember(options.permissions, options.cwd, choice);
          if (problem) notices.push({ type: 'notice', sessionId, level: 'warning', message: problem });
        },
      });
      yield asked.event;
      const answer = await raceSteering(asked.answer, steering);
      yield* notices;
      if (answer === 'superseded') asked.withdraw();
      if (answer === 'superseded' || answer.outcome !== 'allow') {
        fail(call, answer === 'superseded' ? SUPERSEDED : notRunBecause(answer));
        continue;
      }
    }
    approved.push({ call, tool, args });
  }
  return { approved, results };
}

/** The session's rules and the project's; an unreadable project file counts as none, and says so. */
function rememberedRules(permissions: PermissionContext, cwd: string): { rules: PermissionRuleEntry[]; unreadable: boolean } {
  try {
    return { rules: [...permissions.project.list(cwd), ...permissions.session.rules], unreadable: false };
  } catch {
    return { rules: [...permissions.session.rules], unreadable: true };
  }
}

/** Keeps the rules of a chosen option; the problem, in words, when the project file cannot be written. */
function remember(permissions: PermissionContext, cwd: string, choice: Parameters<RememberChoice>[0]): string | undefined {
  const entries: PermissionRuleEntry[] = choice.rules.map((rule) => ({ rule, effect: choice.effect, ...(choice.server ? { server: choice.server } : {}) }));
  if (choice.where === 'session') {
    permissions.session.rules.push(...entries);
    return undefined;
  }
  try {
    for (const entry of entries) permissions.project.add(cwd, entry);
    return undefined;
  } catch (error) {
    permissions.session.rules.push(...entries);
    return `Could not save the permission rule for this project (${error instanceof Error ? error.message : String(error)}); it holds for this session only.`;
  }
}

/** What the model is told of a call that was asked about and did not run. */
function notRunBecause(answer: Exclude<PermissionAnswer, { outcome: 'allow' }>): string {
  if (answer.outcome === 'cancelled') return 'Cancelled before it ran.';
  // Nobody chose this reject: a variant would be refused the same way.
  if (answer.reason) return `Not run: ${answer.reason}. Do not retry it or a variant of it; go on without it.`;
  return 'The user rejected this tool call. Do not retry it unchanged.';
}

/** The user's answer, or `superseded` when a steering message arrives first. */
function raceSteering(answer: Promise<PermissionAnswer>, steering: SteeringQueue | undefined): Promise<PermissionAnswer | 'superseded'> {
  if (!steering) return answer;
  return new Promise((resolve) => {
    const stop = steering.onArrive(() => {
      stop();
      resolve('superseded');
    });
    void answer.then((value) => {
      stop();
      resolve(value);
    });
  });
}

function prepareCall(
  call: StepToolCall,
  byName: ReadonlyMap<string, AnyTool>,
  mode: SessionMode,
): { tool: AnyTool; args: unknown } | { error: string } {
  const tool = byName.get(call.toolName);
  if (call.invalidReason && !tool) return { error: `Invalid tool call: ${call.invalidReason}` };
  if (!tool) {
    const names = [...byName.keys()].join(', ');
    // Plan mode hides tools that change things: say so, or the model will think the tool does not exist.
    const plan = mode === 'plan' ? ' The session is in plan mode: only read-only tools are available; call exit_plan_mode to ask to execute.' : '';
    return { error: `Unknown tool "${call.toolName}". Available tools: ${names || '(none)'}.${plan}` };
  }
  if (call.invalidReason) return { error: `Invalid arguments for "${call.toolName}": ${call.invalidReason}` };
  const validated = tool.validate(call.input);
  if (!validated.ok) return { error: `Invalid arguments for "${call.toolName}":\n${validated.error}` };
  return { tool, args: validated.value };
}
