import type { Agent } from '../agent/agent.js';
import type { AgentAdapter } from './agent-adapter.js';

/**
 * An adapter whose implementation loads on its first `wrap`: the package entry exports the
 * built-ins as values without loading a protocol SDK or the sandbox library at import.
 */
export function lazyAdapter<TConfig, TWrapped>(name: string, load: () => Promise<AgentAdapter<TConfig, TWrapped>>): AgentAdapter<TConfig, TWrapped> {
  return {
    name,
    async wrap(agent: Agent, config: TConfig): Promise<TWrapped> {
      return (await load()).wrap(agent, config);
    },
  };
}
