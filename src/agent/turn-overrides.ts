import type { ResolvedLanguageModel } from '../model/resolve-model.js';

/** What a sub-agent turn changes about a turn. */
export interface TurnOverrides {
  /** Tool name patterns the child may use (`agents.<name>.tools`); all the parent's when absent. */
  tools?: readonly string[];
  systemPrompt?: string;
  model?: ResolvedLanguageModel;
  /** Set for sub-agents: no `task` tool (no recursion), no plan-mode exit. */
  child: boolean;
  /** The session a sub-agent works for (extensions see it: its MCP servers are the sub-agent's too). */
  parentSessionId?: string;
}
