import type { AgentOutput } from '../contracts/agent-output.js';
import type { ExtensionCommand } from '../agent/extension-command.js';
import { closestName } from '../config/closest-name.js';
import { errorMessage } from '../errors/error-message.js';
import type { McpRegistry } from './mcp-registry.js';
import type { ListedPrompt, McpServerInfo } from './mcp-registry-types.js';
import { promptArguments, promptUsage } from './prompt-arguments.js';
import { promptCommandName, promptCommandPrefix } from './prompt-command-name.js';
import { promptTurnContent } from './prompt-turn-content.js';

/** Longer descriptions (a server's text) are cut in the list a client shows. */
const MAX_DESCRIPTION = 300;
/** How long a `/server:prompt` not listed yet waits for a server list change under way. */
const LIST_CHANGE_WAIT_MS = 5_000;

export interface McpPromptCommands {
  /** A session started: its prompts are announced now and whenever they change. */
  sessionStarted(sessionId: string, emit: (event: AgentOutput) => void): void;
  sessionClosed(sessionId: string): void;
  /** The command `/name` of a session; a server still starting (or re-listing) is waited for, as a first turn does. */
  find(name: string, sessionId: string): Promise<ExtensionCommand | undefined>;
  stop(): void;
}

/**
 * The prompts of a session's MCP servers (the config's and the ones its editor gave it) as slash
 * commands `/server:prompt`: announced as the MCP extension's part of the session's list, again
 * when a server lists other prompts (`notifications/prompts/list_changed`), connects late or
 * fails. Running one gets the prompt with the typed arguments and starts a turn with its messages.
 */
export function mcpPromptCommands(registry: McpRegistry, startupWaitMs: number): McpPromptCommands {
  const sessions = new Map<string, { emit: (event: AgentOutput) => void; last?: string }>();

  const commandsOf = (sessionId: string): ExtensionCommand[] => {
    const live = new Set(registry.servers.list({ sessionId }).filter((server) => server.status === 'connected').map((server) => server.id));
    const commands: ExtensionCommand[] = [];
    for (const prompt of registry.prompts.list({ sessionId })) {
      if (prompt.serverId === undefined || !live.has(prompt.serverId)) continue;
      let name = promptCommandName(prompt.serverId, prompt.mcpName);
      // Two prompts of one server whose names differ only in punctuation: the later one is numbered.
      for (let n = 2; commands.some((known) => known.name === name); n++) name = `${promptCommandName(prompt.serverId, prompt.mcpName)}-${n}`;
      commands.push(promptCommand(registry, name, prompt as ListedPrompt & { serverId: string }, sessionId));
    }
    return commands;
  };

  const announce = (sessionId: string) => {
    const entry = sessions.get(sessionId);
    if (!entry) return;
    const commands = commandsOf(sessionId).map(({ name, description, hint }) => ({ name, description, ...(hint ? { hint } : {}) }));
    const key = JSON.stringify(commands);
    if (key === entry.last) return;
    entry.last = key;
    entry.emit({ type: 'commands', sessionId, commands });
  };

  // A catalog re-read, a server connecting, failing or coming back: the sessions that see it look again.
  const unsubscribe = registry.subscribe((event) => {
    if (event.type !== 'server-status' && event.type !== 'catalog-indexed' && event.type !== 'catalog-error') return;
    for (const sessionId of sessions.keys()) if (event.sessionId === undefined || event.sessionId === sessionId) announce(sessionId);
  });

  return {
    sessionStarted(sessionId, emit) {
      sessions.set(sessionId, { emit });
      announce(sessionId);
    },
    sessionClosed: (sessionId) => void sessions.delete(sessionId),
    async find(name, sessionId) {
      if (!name.includes(':')) return undefined;
      const found = () => commandsOf(sessionId).find((command) => command.name === name);
      const listed = found();
      if (listed) return listed;
      await registry.servers.settled(startupWaitMs, { sessionId });
      await registry.catalogsCurrent({ sessionId }, LIST_CHANGE_WAIT_MS);
      return found() ?? unknownPrompt(name, commandsOf(sessionId), registry.servers.list({ sessionId }));
    },
    stop: unsubscribe,
  };
}

function promptCommand(registry: McpRegistry, name: string, prompt: ListedPrompt & { serverId: string }, sessionId: string): ExtensionCommand {
  const declared = prompt.arguments ?? [];
  const usage = promptUsage(declared);
  const described = (prompt.description ?? prompt.title ?? `The prompt "${prompt.mcpName}" of the MCP server "${prompt.serverId}"`).replace(/\s+/g, ' ').trim();
  return {
    name,
    description: described.length > MAX_DESCRIPTION ? `${described.slice(0, MAX_DESCRIPTION - 1)}…` : described,
    ...(usage ? { hint: usage } : {}),
    async run(argument) {
      if (declared.length === 0 && argument !== '') {
        return { error: { code: 'invalid_input', message: `/${name} takes no arguments: the prompt "${prompt.mcpName}" of the MCP server "${prompt.serverId}" declares none. Send /${name} alone.` } };
      }
      const { args, missing } = promptArguments(declared, argument);
      if (missing.length > 0) {
        const names = missing.map((argument) => `"${argument.name}"${argument.description ? ` (${argument.description})` : ''}`).join(', ');
        const pairs = declared.map((argument) => `${argument.name}=…`).join(' ');
        const forms = declared.length > 1 ? ` or /${name} ${pairs}` : '';
        return { error: { code: 'invalid_input', message: `/${name} needs the argument${missing.length > 1 ? 's' : ''} ${names}. Usage: /${name} ${usage}${forms}` } };
      }
      try {
        const result = await registry.prompts.get(prompt.name, args, { sessionId });
        return { turn: promptTurnContent(result, { serverId: prompt.serverId, prompt: prompt.mcpName, command: name }) };
      } catch (error) {
        return { error: { code: 'mcp_prompt_failed', message: `The MCP server "${prompt.serverId}" could not give its prompt "${prompt.mcpName}" (/${name}): ${errorMessage(error)}` } };
      }
    },
  };
}

/**
 * `/server:…` of a server the session has, not listed: an error naming the server's state (down)
 * or its prompts (and the one meant), not a turn that sends the typo to the model. A prefix no
 * server has stays text for the model.
 */
function unknownPrompt(name: string, listed: readonly ExtensionCommand[], servers: readonly McpServerInfo[]): ExtensionCommand | undefined {
  const prefix = name.slice(0, name.indexOf(':') + 1);
  const server = servers.find((candidate) => promptCommandPrefix(candidate.id) === prefix);
  if (!server) return undefined;
  const siblings = listed.filter((command) => command.name.startsWith(prefix)).map((command) => command.name);
  const meant = closestName(name, siblings);
  const message =
    server.status !== 'connected'
      ? `The MCP server "${server.id}" is ${server.config.enabled ? server.status : 'disabled'}: its prompts are offered once it connects. /mcp shows its state and last error.`
      : siblings.length === 0
        ? `The MCP server "${server.id}" offers no prompts, so there is no /${name}.`
        : `${meant ? `There is no /${name}: did you mean /${meant}? ` : `There is no /${name}. `}The prompts of that server: ${siblings.map((command) => `/${command}`).join(', ')}.`;
  return { name, description: '', run: () => ({ error: { code: 'invalid_input', message } }) };
}
