import type { AgentCore } from './agent-core.js';
import { agentSessions } from './agent-sessions.js';
import type { SubagentOptions } from './create-agent-options.js';
import { createExitPlanModeTool } from './exit-plan-mode-tool.js';
import { createSubagentRunner } from './run-subagent.js';
import { createTaskTool } from './task-tool.js';
import { runSessionTurn } from './run-session-turn.js';

/** Tools the core itself offers: `exit_plan_mode`, and `task` when sub-agents are defined. */
export function createCoreTools(core: AgentCore, subagents: SubagentOptions | undefined): ReturnType<AgentCore['coreTools']> {
  const exitPlanMode = createExitPlanModeTool({ setMode: agentSessions(core).setMode });
  if (!subagents || Object.keys(subagents.agents).length === 0) return { task: undefined, exitPlanMode };
  const run = createSubagentRunner({
    agents: subagents.agents,
    resolveModel: subagents.resolveModel,
    manager: core.manager,
    runTurn: (live, input, signal, runtime, overrides) => runSessionTurn(core, { input, options: { runtime, signal }, live, overrides }),
  });
  return { task: createTaskTool({ agents: subagents.agents, maxParallel: subagents.maxParallel ?? 5, run }), exitPlanMode };
}
