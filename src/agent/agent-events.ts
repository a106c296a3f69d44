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
  const shadowed = new Set<string>();
  return {
    announced,
    fresh: new Set<string>(),
    publish(event) {
      if (event.type === 'commands') announced.add(event.sessionId);
      const builtins = event.type === 'commands' ? [PERMISSIONS_COMMAND, ...extraCommands()] : [];
      const out = event.type === 'commands' ? { ...event, commands: withBuiltinCommands(event.commands, builtins) } : event;
      for (const listener of listeners) listener(out);
      if (event.type !== 'commands') return;
      // A skill named like the agent's own command was listed with the skill's description, and
      // `/name` ran the agent's command: say so once per session, with the way out.
      for (const command of event.commands.filter((candidate) => builtins.some((builtin) => builtin.name === candidate.name))) {
        const key = `${event.sessionId}\u0000${command.name}`;
        if (shadowed.has(key)) continue;
        shadowed.add(key);
        const notice: AgentOutput = {
          type: 'notice',
          sessionId: event.sessionId,
          level: 'warning',
          message: `/${command.name} is the agent's own command, so the skill "${command.name}" is not offered as a slash command (the model can still open it with read_skill); rename the skill to use it as one`,
        };
        for (const listener of listeners) listener(notice);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The agent's own slash commands beside the extensions' (skills); a skill of the same name gives way, as `/name` runs the agent's. */
function withBuiltinCommands(commands: Command[], builtins: Command[]): Command[] {
  const all = commands.filter((command) => !builtins.some((builtin) => builtin.name === command.name));
  for (const command of builtins) {
    if (!all.some((known) => known.name === command.name)) all.push({ name: command.name, description: command.description, ...(command.hint ? { hint: command.hint } : {}) });
  }
  return all;
}

type Command = { name: string; description: string; hint?: string };
