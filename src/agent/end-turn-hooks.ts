import type { StopReason } from '../contracts/agent-output.js';
import type { AgentCore } from './agent-core.js';
import type { TurnContext } from './agent-extension.js';
import { runHooksInOrder } from './agent-notices.js';

/** After a turn that did not fail: the extensions' `onTurnEnd` (the config's hooks are the last extension); a failure is a notice. */
export async function runTurnEndHooks(core: AgentCore, context: TurnContext, stopReason: StopReason): Promise<void> {
  await runHooksInOrder(core.extensions.list, 'onTurnEnd', (extension) => extension.onTurnEnd?.(context, stopReason), context.emit, context.sessionId);
}
