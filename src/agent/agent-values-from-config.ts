import type { PlaitedConfig } from '../config/schema.js';
import type { SessionStores } from '../storage/session-storage.js';
import type { CreateAgentOptions } from './create-agent-options.js';
import { settingsOf } from './agent-settings.js';
import { loadDefaultTools } from './default-tools.js';
import { memoizeUntilFailure } from './memoize-until-failure.js';
import { modelSource, type ModelOption } from './model-source.js';
import { createSessionModels } from './session-model.js';

/**
 * A parsed config as the values `createAgent` takes: the model (resolved on first use),
 * the session model choices, the built-in tools with their limits, the tool rules, hooks,
 * turn settings, sub-agents and the session stores. The one place the core's inputs meet the file's shape.
 */
export function agentValuesFromConfig(config: PlaitedConfig, model?: ModelOption, debug?: (message: string) => void): CreateAgentOptions {
  const configured = modelSource(config, model, debug);
  return {
    model: configured,
    sessionModel: createSessionModels(config, configured),
    tools: memoizeUntilFailure(() => loadDefaultTools(config)),
    toolRules: config.tools,
    hooks: config.hooks,
    settings: settingsOf(config.agent),
    subagents: {
      agents: config.agents,
      maxParallel: config.agent.maxParallelSubagents,
      resolveModel: async (spec) => (await import('../model/resolve-model.js')).resolveModel({ ...config.agent, model: spec }),
    },
    openStores: () => openStores(config),
  };
}

async function openStores(config: PlaitedConfig): Promise<SessionStores> {
  const { openSessionStores } = await import('../storage/open-session-stores.js');
  return openSessionStores({
    ...(config.storage?.url ? { url: config.storage.url } : {}),
    ...(config.agent.stateDb ? { path: config.agent.stateDb } : {}),
    ...(config.agent.sessionLease ? { leases: config.agent.sessionLease } : {}),
  });
}
