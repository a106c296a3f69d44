import type { AnyTool } from '../contracts/tool.js';
import type { AgentCore } from './agent-core.js';
import type { TurnContext } from './agent-extension.js';
import { runHooksInOrder } from './agent-notices.js';
import type { LiveSession } from './session-manager.js';
import { matchesPattern } from './tool-policy.js';
import type { TurnOverrides } from './turn-overrides.js';

/**
 * The tools a session is offered for this step, first name wins: the built-ins, the
 * extensions' (in order), then the core's own; each passes the policy and the sub-agent's patterns.
 */
export async function offeredTools(core: AgentCore, live: LiveSession, context: TurnContext, overrides?: TurnOverrides): Promise<AnyTool[]> {
  const seen = new Set<string>();
  const offered: AnyTool[] = [];
  const mode = live.info.mode;
  const add = (tool: AnyTool) => {
    if (seen.has(tool.name) || !core.policy.offers(tool, mode)) return;
    if (overrides?.tools && !overrides.tools.some((pattern) => matchesPattern(tool.name, pattern))) return;
    seen.add(tool.name);
    offered.push(tool);
  };
  for (const tool of await core.builtinTools()) add(tool);
  await runHooksInOrder(
    core.extensions.list,
    'tools',
    async (extension) => {
      for (const tool of (await extension.tools?.(context)) ?? []) add(tool);
    },
    context.emit,
    live.info.sessionId,
  );
  const { task, exitPlanMode } = core.coreTools();
  if (task && !overrides?.child) add(task);
  if (mode === 'plan' && !overrides?.child) add(exitPlanMode);
  return offered;
}
