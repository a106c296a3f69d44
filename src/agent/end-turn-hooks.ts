import type { StopReason } from '../contracts/agent-output.js';
import type { AgentCore } from './agent-core.js';
import type { TurnContext } from './agent-extension.js';
import { noticeOf, runHooksInOrder } from './agent-notices.js';

/** After a turn that did not fail: the extensions' `onTurnEnd`, then the user's hooks; a failure is a notice. */
export async function runTurnEndHooks(core: AgentCore, context: TurnContext, stopReason: StopReason): Promise<void> {
  const { sessionId, cwd } = context;
  await runHooksInOrder(core.extensions.list, 'onTurnEnd', (extension) => extension.onTurnEnd?.(context, stopReason), context.emit, sessionId);
  for (const hook of core.hooks.onTurnEnd) {
    try {
      await hook({ sessionId, cwd, stopReason });
    } catch (error) {
      context.emit(noticeOf(sessionId, 'config hooks', 'onTurnEnd', error));
    }
  }
}
