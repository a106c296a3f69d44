import { AdmittedWork } from './admitted-work.js';
import { BackgroundProcesses } from '../tools/background-processes.js';
import type { SessionStores } from '../storage/session-storage.js';
import { asSessionStores } from '../storage/sqlite/as-session-stores.js';
import type { Runtime } from '../contracts/runtime.js';
import type { AgentCore } from './agent-core.js';
import { createAgentEvents } from './agent-events.js';
import { PERMISSIONS_COMMAND } from './permissions-command.js';
import { SessionCommands } from './session-commands.js';
import { configHooksExtension } from './config-hooks-extension.js';
import { agentSettings } from './agent-settings.js';
import type { CreateAgentOptions } from './create-agent-options.js';
import { loadDefaultTools } from './default-tools.js';
import { ExtensionSet } from './extension-set.js';
import { createMemoryRuleStore } from './memory-rule-store.js';
import { memoizeUntilFailure } from './memoize-until-failure.js';
import { modelSource } from './model-source.js';
import { openSessionManager } from './open-session-manager.js';
import { RunningToolCalls } from './running-tool-calls.js';
import { createCoreTools } from './core-tools.js';
import { ToolPolicy } from './tool-policy.js';
import { defaultConfig } from '../config/default-config.js';

/** The shared parts of one agent, from ready values; heavy ones (stores, tools, model) open on first use. */
export function createAgentCore(options: CreateAgentOptions): AgentCore {
  const events = createAgentEvents();
  // The agent's own slash commands and the extensions' static ones (`/mcp`) ride along with every announcement.
  const commands = new SessionCommands(() => [PERMISSIONS_COMMAND, ...core.extensions.list.flatMap((extension) => extension.commands ?? [])], events.publish);
  const model = modelSource(defaultConfig(), options.model);
  const tools = options.tools;
  let managerPromise: ReturnType<AgentCore['manager']> | undefined;
  let ownStores: SessionStores | undefined;
  let coreTools: ReturnType<AgentCore['coreTools']> | undefined;
  const stores = async () => (options.stores ? asSessionStores(options.stores) : (ownStores = asSessionStores(await (options.openStores ?? defaultStores)())));
  const core: AgentCore = {
    settings: agentSettings(options.settings),
    policy: new ToolPolicy(options.toolRules ?? defaultConfig().tools),
    projectRules: options.permissionRules ?? createMemoryRuleStore(),
    events,
    commands,
    // The given hooks are one more extension, last (config-hooks-extension.ts): one hook system.
    extensions: new ExtensionSet([...(options.extensions ?? []), ...(options.hooks ? [configHooksExtension(options.hooks)] : [])], options.loadExtensions),
    runningCalls: new RunningToolCalls(),
    // Background commands outlive their turn (their events go to subscribers) and stop with their session.
    background: new BackgroundProcesses({ publish: events.publish }),
    // A store that could not open (a database server down) is retried by the next caller, not cached as failed.
    manager: () =>
      (managerPromise ??= stores()
        .then((opened) => openSessionManager(core, opened))
        .catch((error: unknown) => {
          managerPromise = undefined;
          throw error;
        })),
    openedManager: () => managerPromise,
    ownStores: () => ownStores,
    builtinTools: typeof tools === 'function' ? tools : tools ? async () => tools : memoizeUntilFailure(() => loadDefaultTools(defaultConfig())),
    runtimeFor: async (cwd: string): Promise<Runtime> => {
      if (options.runtime) return options.runtime(cwd);
      const { createLocalRuntime } = await import('../tools/local-runtime.js');
      return createLocalRuntime(cwd);
    },
    sessionModel: options.sessionModel ?? (() => model()),
    coreTools: () => (coreTools ??= createCoreTools(core, options.subagents)),
    stopped: false,
    admitted: new AdmittedWork(),
  };
  return core;
}

async function defaultStores(): Promise<SessionStores> {
  const { openSessionStores } = await import('../storage/open-session-stores.js');
  return openSessionStores({});
}
