import type { AgentCapabilities, SessionOptions } from './agent.js';
import type { AgentExtension } from './agent-extension.js';
import type { AgentSettings } from './agent-settings.js';
import type { ModelOption } from './model-source.js';
import type { SubagentDefinitions } from './run-subagent.js';
import type { OnToolCallHook, OnToolResultHook, OnTurnEndHook } from '../contracts/agent-hooks.js';
import type { PlaitedConfig, PlaitedConfigInput, ToolPolicyConfig } from '../config/schema.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { PermissionRuleStore } from '../storage/permission-rule-file.js';
import type { StoreRegistry } from '../storage/store-registry.js';
import type { SessionStores } from '../storage/session-storage.js';
import type { Runtime } from '../contracts/runtime.js';
import type { AnyTool } from '../contracts/tool.js';

/** Functions called around tool calls and turns: one each, or a list run in order. */
export interface AgentHooks {
  onToolCall?: OnToolCallHook | OnToolCallHook[];
  onToolResult?: OnToolResultHook | OnToolResultHook[];
  onTurnEnd?: OnTurnEndHook | OnTurnEndHook[];
}

/** The `task` tool's sub-agents; without any, no `task` tool is offered. */
export interface SubagentOptions {
  agents: SubagentDefinitions;
  /** Sub-agents one `task` call runs at once (default 5). */
  maxParallel?: number;
  /** Resolves a sub-agent's model given by name (`provider:model`). */
  resolveModel(spec: string): Promise<ResolvedLanguageModel>;
}

/**
 * What `createAgent` builds an agent from: ready values, none read from a file. Each has a
 * default, so `createAgent({ model })` is a working agent. `createDefaultAgent(config)` is
 * the preset that turns a config into these values.
 */
export interface CreateAgentOptions {
  /** The model of every turn: an object, or a function called when a turn needs it. */
  model?: ModelOption;
  /** The model for a session's choices (ACP config options: a named model, a reasoning effort); default: `model`. */
  sessionModel?: (options: SessionOptions | undefined) => Promise<ResolvedLanguageModel>;
  /** Built-in tools, or a function that loads them on first use; default: the file, search, bash and web tools. */
  tools?: AnyTool[] | (() => Promise<AnyTool[]>);
  /** Modules that add tools, prompt text and session hooks (MCP, skills, rules, memory, plans). */
  extensions?: AgentExtension[];
  /**
   * Extensions too heavy to build before a protocol's handshake (they open the index, the MCP
   * SDK, a model): loaded when the first session starts, placed before `extensions`, and then
   * isolated one by one like the others. A failed load is a notice and is retried later.
   */
  loadExtensions?: () => Promise<AgentExtension[]>;
  /** Capabilities the `loadExtensions` ones bring (an MCP extension: `{ mcp: { http, sse } }`); eager extensions declare theirs. */
  capabilities?: Partial<Pick<AgentCapabilities, 'mcp'>>;
  /** Session stores the caller owns (and closes): any driver (`openSessionStores`), or a SQLite `StoreRegistry`. */
  stores?: SessionStores | StoreRegistry;
  /** Opens the stores on first use; the agent closes them on `stop`. Default: `.plaited/state.db` per project. */
  openStores?: () => Promise<SessionStores | StoreRegistry>;
  /** The runtime used when `process` is not given one; default: the local one. */
  runtime?: (cwd: string) => Runtime | Promise<Runtime>;
  /**
   * Where "always" answers are kept per project (the preset uses a file in the user's own
   * folder, see `src/storage/permission-rule-file.ts`); default: in memory, for this process.
   */
  permissionRules?: PermissionRuleStore;
  /** Which tool sources are offered and the allow/deny rules; default: all sources, no rules. */
  toolRules?: ToolPolicyConfig;
  hooks?: AgentHooks;
  /** Turn limits, system prompt, modes and compaction; defaults as documented for `agent.*`. */
  settings?: Partial<AgentSettings>;
  subagents?: SubagentOptions;
  /**
   * @deprecated Give the values above (or use `createDefaultAgent`). A config here is turned
   * into them by `agentValuesFromConfig`; values given beside it win.
   */
  config?: PlaitedConfigInput | PlaitedConfig;
}
