import type { ConfigHooks, ToolCallDecision } from '../contracts/agent-hooks.js';
import type { AgentExtension } from './agent-extension.js';
import { decideToolCall, hookList } from './agent-hooks.js';
import { noticeOf } from './agent-notices.js';

/**
 * The config's `hooks` as one more extension, so the core runs one hook system. It comes last,
 * after every other extension, as the config hooks always did. Each hook of a list runs on its
 * own: one that throws is reported as a notice ("config hooks (onToolCall) failed: …") and the
 * rest still run; for `onToolCall` the first decision wins.
 */
export function configHooksExtension(hooks: ConfigHooks): AgentExtension {
  const onToolCall = hookList(hooks.onToolCall);
  const onToolResult = hookList(hooks.onToolResult);
  const onTurnEnd = hookList(hooks.onTurnEnd);
  const name = 'config hooks';
  return {
    name,
    ...(onToolCall.length > 0 && {
      onToolCall: (context, event): Promise<ToolCallDecision> =>
        decideToolCall(onToolCall, event, (error) => context.emit(noticeOf(context.sessionId, name, 'onToolCall', error))),
    }),
    ...(onToolResult.length > 0 && {
      async onToolResult(context, call) {
        const { sessionId, runtime } = context;
        const { toolCallId, toolName, risk, source, args, result } = call;
        for (const hook of onToolResult) {
          try {
            await hook({ sessionId, cwd: runtime.cwd, toolCallId, toolName, risk, source, args, result });
          } catch (error) {
            context.emit(noticeOf(sessionId, name, 'onToolResult', error));
          }
        }
      },
    }),
    ...(onTurnEnd.length > 0 && {
      async onTurnEnd(context, stopReason) {
        for (const hook of onTurnEnd) {
          try {
            await hook({ sessionId: context.sessionId, cwd: context.cwd, stopReason });
          } catch (error) {
            context.emit(noticeOf(context.sessionId, name, 'onTurnEnd', error));
          }
        }
      },
    }),
  };
}
