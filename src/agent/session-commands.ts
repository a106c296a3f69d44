import type { AgentOutput } from '../contracts/agent-output.js';

type Listed = { name: string; description: string; hint?: string };

/**
 * One list of slash commands per session, merged here rather than by each extension: a client
 * keeps only the latest `available_commands_update`, so a part announced alone (the skills)
 * replaced every other (an MCP server's prompts). Each extension's part is the latest `commands`
 * event it emitted for the session; the agent's own (`/permissions`) and the extensions' static
 * ones (`/mcp`) ride along and win a name. The whole list goes out once the session's start is
 * done, then whenever a part is emitted again.
 */
export class SessionCommands {
  readonly #builtins: () => readonly Listed[];
  readonly #publish: (event: AgentOutput) => void;
  /** Per open session: each extension's part, in the order they first spoke. */
  readonly #parts = new Map<string, Map<string, readonly Listed[]>>();
  readonly #starting = new Set<string>();
  readonly #shadowed = new Set<string>();

  constructor(builtins: () => readonly Listed[], publish: (event: AgentOutput) => void) {
    this.#builtins = builtins;
    this.#publish = publish;
  }

  /** A session's start begins: parts are gathered, not announced, until `started`. */
  starting(sessionId: string): void {
    if (!this.#parts.has(sessionId)) this.#parts.set(sessionId, new Map());
    this.#starting.add(sessionId);
  }

  /**
   * The start is done: the list goes out once, when an extension offers commands or `always`
   * (a session created by this process hears of `/permissions` alone; a loaded one without
   * extension commands stays a state snapshot, its client kept the list).
   */
  started(sessionId: string, always: boolean): void {
    this.#starting.delete(sessionId);
    const parts = this.#parts.get(sessionId);
    if (always || [...(parts?.values() ?? [])].some((part) => part.length > 0)) this.#announce(sessionId);
  }

  /** The emit an extension's session hooks get: its `commands` events become its part of the list. */
  emitFor(extension: string): (event: AgentOutput) => void {
    return (event) => {
      if (event.type !== 'commands') return this.#publish(event);
      const parts = this.#parts.get(event.sessionId);
      // A part for a session that closed meanwhile (a late watcher) has no one to tell.
      if (!parts) return;
      parts.set(extension, event.commands);
      if (!this.#starting.has(event.sessionId)) this.#announce(event.sessionId);
    };
  }

  forget(sessionId: string): void {
    this.#parts.delete(sessionId);
    this.#starting.delete(sessionId);
    for (const key of this.#shadowed) if (key.startsWith(`${sessionId}\u0000`)) this.#shadowed.delete(key);
  }

  #announce(sessionId: string): void {
    const builtins = this.#builtins();
    const commands: Listed[] = [];
    for (const [extension, part] of this.#parts.get(sessionId) ?? []) {
      for (const command of part) {
        if (builtins.some((builtin) => builtin.name === command.name)) this.#shadow(sessionId, extension, command.name);
        else if (!commands.some((known) => known.name === command.name)) commands.push(command);
      }
    }
    for (const { name, description, hint } of builtins) if (!commands.some((known) => known.name === name)) commands.push({ name, description, ...(hint ? { hint } : {}) });
    this.#publish({ type: 'commands', sessionId, commands });
  }

  /** An extension's command named like the agent's own was left out, and `/name` runs the agent's: say so once per session, with the way out. */
  #shadow(sessionId: string, extension: string, name: string): void {
    const key = `${sessionId}\u0000${name}`;
    if (this.#shadowed.has(key)) return;
    this.#shadowed.add(key);
    const message =
      extension === 'skills'
        ? `/${name} is the agent's own command, so the skill "${name}" is not offered as a slash command (the model can still open it with read_skill); rename the skill to use it as one`
        : `/${name} is the agent's own command, so the "${extension}" extension's /${name} is not offered`;
    this.#publish({ type: 'notice', sessionId, level: 'warning', message });
  }
}
