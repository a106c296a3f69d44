import type { AdmittedWork } from './admitted-work.js';
import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { PermissionRuleStore } from '../storage/permission-rule-file.js';
import type { SessionStores } from '../storage/session-storage.js';
import type { Runtime } from '../contracts/runtime.js';
import type { AnyTool } from '../contracts/tool.js';
import type { SessionOptions } from './agent.js';
import type { AgentEvents } from './agent-events.js';
import type { AgentSettings } from './agent-settings.js';
import type { ExtensionSet } from './extension-set.js';
import type { SessionCommands } from './session-commands.js';
import type { LiveSession, LocalSessionManager } from './session-manager.js';
import type { PermissionContext, ToolPolicy } from './tool-policy.js';
import type { RunningToolCalls } from './running-tool-calls.js';
import type { BackgroundProcesses } from '../tools/background-processes.js';

/**
 * The parts one agent's functions share: built once by `createAgentCore` from the values
 * `createAgent` was given, then passed to the small functions that make up the agent.
 */
export interface AgentCore {
  readonly settings: AgentSettings;
  readonly policy: ToolPolicy;
  readonly projectRules: PermissionRuleStore;
  readonly events: AgentEvents;
  /** Each session's one list of slash commands, merged from the extensions' parts. */
  readonly commands: SessionCommands;
  readonly extensions: ExtensionSet;
  readonly runningCalls: RunningToolCalls;
  readonly background: BackgroundProcesses;
  /** The session manager, opened (with its stores) on first use. */
  manager(): Promise<LocalSessionManager>;
  /** Set once a manager was asked for: `stop` closes only what was opened. */
  openedManager(): Promise<LocalSessionManager> | undefined;
  /** Stores the agent opened itself (injected ones belong to the caller). */
  ownStores(): SessionStores | undefined;
  builtinTools(): Promise<AnyTool[]>;
  runtimeFor(cwd: string): Promise<Runtime>;
  sessionModel(options: SessionOptions | undefined): Promise<ResolvedLanguageModel>;
  /** Tools only the core offers: `task` (with sub-agents) and `exit_plan_mode` (in plan mode). */
  coreTools(): { task: AnyTool | undefined; exitPlanMode: AnyTool };
  stopped: boolean;
  /** Prompts and session requests let in before the stop began: `stop` waits for them (stop-agent.ts). */
  readonly admitted: AdmittedWork;
}

/** The session's remembered answers beside the project's. */
export function permissionsOf(core: AgentCore, live: LiveSession): PermissionContext {
  return { session: live.permissions, project: core.projectRules };
}
