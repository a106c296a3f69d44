import type { AgentExtension, TurnContext } from '../agent/agent-extension.js';
import { untilAborted } from '../agent/until-aborted.js';
import type { PlaitedConfig } from '../config/schema.js';
import type { AnyTool } from '../contracts/tool.js';
import type { McpRegistry } from './mcp-registry.js';
import { createSearchToolsTool } from './search-tools-tool.js';
import { createListResourcesTool } from './list-resources-tool.js';
import { createReadResourceTool } from './read-resource-tool.js';
import { MCP_CAPABILITIES } from './mcp-capabilities.js';
import { mcpCommand } from './mcp-command.js';
import { mcpFailureNotices } from './mcp-failure-notices.js';
import { serverInstructionsPrompt } from './server-instructions-prompt.js';
import { firstTurnServersWait } from './first-turn-servers-wait.js';
import { sessionServers } from './session-servers.js';
import { mcpPromptCommands } from './mcp-prompt-commands.js';

/** How long a step waits for the catalogs to take in announced list changes before going on without. */
const LIST_CHANGE_WAIT_MS = 5_000;

export interface McpExtensionOptions {
  registry: McpRegistry;
  config: PlaitedConfig;
  /**
   * How long a session start waits for its servers (default 5 s). A slower server keeps
   * connecting in the background; its failure, if any, is still reported as a notice.
   */
  sessionStartWaitMs?: number;
}

export interface McpExtension extends AgentExtension {
  /** Tools `search_tools` activated for the session's current turn. */
  activated(sessionId: string): string[];
}

/**
 * Plugs the MCP registry into the agent: connects a session's own servers when it starts (a
 * failure is a warning notice, never a failed session), closes them with it, offers the servers'
 * prompts as slash commands `/server:prompt` (mcp-prompt-commands.ts), and offers tools
 * per step. With more MCP tools than `mcp.discovery.threshold`, a step gets only the top
 * `mcp.discovery.limit` for the turn's intent (searched step by step of the request), plus `search_tools`, plus whatever `search_tools`
 * found earlier in the turn (the loop calls `tools()` before every step, so those are callable
 * in the same turn). At or below the threshold every MCP tool is offered.
 */
export function createMcpExtension(options: McpExtensionOptions): McpExtension {
  const { registry, config } = options;
  const activated = new Map<string, Set<string>>();
  // A sub-agent's session, to the session it works for: the servers the editor gave that session are the sub-agent's too.
  const workingFor = new Map<string, string>();
  const scopeOfSession = (sessionId: string) => workingFor.get(sessionId) ?? sessionId;
  const scopeOf = (context: TurnContext) => {
    if (context.parentSessionId) workingFor.set(context.sessionId, context.parentSessionId);
    return { sessionId: context.parentSessionId ?? context.sessionId };
  };
  // A config server that cannot start or dies is told to each session's client once.
  const notices = mcpFailureNotices(registry);
  const serversWait = firstTurnServersWait(registry, config.mcp.startupWaitMs);
  const servers = sessionServers(registry, config, options.sessionStartWaitMs ?? 5_000);
  const prompts = mcpPromptCommands(registry, config.mcp.startupWaitMs);
  const searchTools = createSearchToolsTool({
    registry,
    limit: config.mcp.discovery.limit,
    scopeOf: scopeOfSession,
    onFound(sessionId, names) {
      let set = activated.get(sessionId);
      if (!set) activated.set(sessionId, (set = new Set()));
      for (const name of names) set.add(name);
    },
  });

  // Offered whenever a server of the session has resources or URI templates: the model's way to them.
  const resourceTools = [createListResourcesTool(registry, scopeOfSession), createReadResourceTool(registry, scopeOfSession)];
  const withResources = (tools: AnyTool[], scope: { sessionId: string }): AnyTool[] =>
    registry.resources.list(scope).length + registry.resources.templates(scope).length > 0 ? [...tools, ...resourceTools] : tools;

  return {
    name: 'mcp',
    capabilities: MCP_CAPABILITIES,
    commands: [mcpCommand(registry)],
    command: (name, session) => prompts.find(name, scopeOfSession(session.sessionId)),

    activated: (sessionId) => [...(activated.get(sessionId) ?? [])],

    async systemPrompt(context: TurnContext): Promise<string | undefined> {
      // The first turn waits for the config's servers here too, so their instructions are in its prompt.
      await serversWait.wait(context);
      return serverInstructionsPrompt(registry.servers.list(scopeOf(context)));
    },

    async tools(context: TurnContext): Promise<AnyTool[]> {
      await serversWait.wait(context);
      const scope = scopeOf(context);
      // A list change announced during the last step (a tool that switched more tools on) is read first.
      await untilAborted(registry.catalogsCurrent(scope, LIST_CHANGE_WAIT_MS), context.signal);
      const all = registry.tools.list(scope);
      const { threshold, limit } = config.mcp.discovery;
      if (all.length <= threshold) return withResources(all, scope);
      const offered = new Map<string, AnyTool>();
      if (context.intent.trim()) {
        // A multi-step request is ranked per step by the index: a three-step request gets each step's best tool.
        for (const hit of await registry.discoverRelevant(context.intent, { ...scope, limit, kinds: ['tool'] })) {
          if (hit.kind === 'tool') offered.set(hit.tool.name, hit.tool);
        }
      }
      for (const name of activated.get(context.sessionId) ?? []) {
        const tool = registry.tools.get(name, scope);
        if (tool) offered.set(name, tool);
      }
      offered.set(searchTools.name, searchTools);
      return withResources([...offered.values()], scope);
    },

    onTurnEnd(context) {
      activated.delete(context.sessionId);
      workingFor.delete(context.sessionId);
    },

    async onSessionStart(session, emit) {
      notices.sessionStarted(session.sessionId, emit);
      await servers.start(session, emit);
      // The servers' prompts as slash commands, with what connected so far; later ones follow.
      prompts.sessionStarted(session.sessionId, emit);
    },

    async onSessionServersChange(session, emit) {
      await servers.change(session, emit);
      // The next turn waits for the new servers as a first turn does.
      serversWait.forget(session.sessionId);
    },

    async onSessionClose(sessionId) {
      activated.delete(sessionId);
      serversWait.forget(sessionId);
      servers.forget(sessionId);
      notices.sessionClosed(sessionId);
      prompts.sessionClosed(sessionId);
      await registry.closeSession(sessionId);
    },

    async close() {
      notices.stop();
      prompts.stop();
      await registry.close();
    },
  };
}
