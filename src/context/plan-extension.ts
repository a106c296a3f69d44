import type { AgentExtension, TurnContext } from '../agent/agent-extension.js';
import { createPlanTool, renderPlan } from './plan-tool.js';
import { SessionPlans } from './session-plans.js';

/**
 * Plans in the agent: the `plan` tool on every step, and the current plan (with item
 * ids) in the system prompt, so a model resuming a loaded session updates the same items
 * instead of starting a new list.
 */
export interface PlanExtension extends AgentExtension {
  plans: SessionPlans;
}

export function createPlanExtension(options: { plans?: SessionPlans; warn?: (message: string) => void } = {}): PlanExtension {
  const { warn } = options;
  const plans =
    options.plans ??
    new SessionPlans(warn ? { onSetAside: (file, aside, why) => warn(`the plan file ${file} could not be read (${why}): moved to ${aside}; the session's plan starts afresh`) } : {});
  const tool = createPlanTool(plans);
  return {
    name: 'plans',
    plans,
    tools: () => [tool],
    async systemPrompt(context: TurnContext) {
      const store = await plans.get(context.sessionId, context.cwd);
      if (store.size === 0) return undefined;
      return `Current plan (keep it up to date with the plan tool, referring to items by id):\n${renderPlan(store)}`;
    },
    onSessionClose: (sessionId) => plans.release(sessionId),
    // The fork's plan is the source's, so the model goes on editing the items the client was shown.
    onSessionDelete: (session) => plans.remove(session.sessionId, session.cwd),
    onSessionFork: (from, to) => plans.copy({ sessionId: from.sessionId, cwd: from.cwd }, { sessionId: to.sessionId, cwd: to.cwd }),
    close: () => plans.flush(),
  };
}
