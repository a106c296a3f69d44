import type { AgentOutput } from '../contracts/agent-output.js';

/** The events an agent publishes outside a turn. */
export interface AgentEvents {
  publish(event: AgentOutput): void;
  subscribe(listener: (event: AgentOutput) => void): () => void;
  /**
   * Sessions created by this process: they are told of `/permissions` even without extension
   * commands. A loaded or resumed one hears of it with the extensions' commands only, so a resume
   * stays a state snapshot (its client kept the list).
   */
  readonly fresh: Set<string>;
}

export function createAgentEvents(): AgentEvents {
  const listeners = new Set<(event: AgentOutput) => void>();
  return {
    fresh: new Set<string>(),
    publish(event) {
      for (const listener of listeners) listener(event);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
