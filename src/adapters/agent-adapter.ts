import type { Agent } from '../agent/agent.js';

/**
 * How the outside world reaches an agent. `wrap` starts serving and resolves to
 * whatever the adapter wants to hand back (a server handle, a wrapped agent for the
 * next adapter in a chain). Adapters compose left to right: `--adapter sandbox --adapter acp`.
 */
export interface AgentAdapter<TConfig = unknown, TWrapped = unknown> {
  name: string;
  wrap(agent: Agent, config: TConfig): Promise<TWrapped> | TWrapped;
}
