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

/** `extraCommands`: the extensions' own slash commands (`/mcp`), announced beside `/permissions`. */
export function createAgentEvents(extraCommands: () => Command[] = () => []): AgentEvents {
  const listeners = new Set<(event: AgentOutput) => void>();
  const announced = new Set<string>();
  return {
    announced,
    fresh: new Set<string>(),
    publish(event) {
      if (event.type === 'commands') announced.add(event.sessionId);
      const out = event.type === 'commands' ? { ...event, commands: withBuiltinCommands(event.commands, extraCommands()) } : event;
      for (const listener of listeners) listener(out);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The agent's own slash commands beside the extensions' (skills). */
function withBuiltinCommands(commands: Command[], extra: Command[]): Command[] {
  const all = [...commands];
  for (const command of [PERMISSIONS_COMMAND, ...extra]) {
    if (!all.some((known) => known.name === command.name)) all.push({ name: command.name, description: command.description, ...(command.hint ? { hint: command.hint } : {}) });
  }
  return all;
}

type Command = { name: string; description: string; hint?: string };
