import type { AgentOutput } from '../contracts/agent-output.js';
import { PERMISSIONS_COMMAND } from './permissions-command.js';

/** The events an agent publishes outside a turn, and which sessions heard of the slash commands. */
export interface AgentEvents {
  publish(event: AgentOutput): void;
  subscribe(listener: (event: AgentOutput) => void): () => void;
  /** Sessions whose slash commands were announced (the agent's own ride along with the extensions'). */
  readonly announced: Set<string>;
  /**
   * Sessions created by this process: they are told of `/permissions` even without extension
   * commands. A loaded or resumed one hears of it with the extensions' commands only, so a resume
   * stays a state snapshot (its client kept the list).
   */
  readonly fresh: Set<string>;
}

export function createAgentEvents(): AgentEvents {
  const listeners = new Set<(event: AgentOutput) => void>();
  const announced = new Set<string>();
  return {
    announced,
    fresh: new Set<string>(),
    publish(event) {
      if (event.type === 'commands') announced.add(event.sessionId);
      const out = event.type === 'commands' ? { ...event, commands: withBuiltinCommands(event.commands) } : event;
      for (const listener of listeners) listener(out);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The agent's own slash commands beside the extensions' (skills). */
function withBuiltinCommands(commands: Array<{ name: string; description: string; hint?: string }>) {
  return commands.some((command) => command.name === PERMISSIONS_COMMAND.name) ? commands : [...commands, PERMISSIONS_COMMAND];
}
