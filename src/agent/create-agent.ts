import type { Agent } from './agent.js';
import { agentCapabilities } from './agent-capabilities.js';
import { agentSessions } from './agent-sessions.js';
import { agentValuesFromConfig } from './agent-values-from-config.js';
import { createAgentCore } from './create-agent-core.js';
import type { CreateAgentOptions } from './create-agent-options.js';
import { offeredTools } from './offered-tools.js';
import { runSessionTurn } from './run-session-turn.js';
import { drainingError, stopAgent, whileRunning } from './stop-agent.js';
import { parseConfig } from '../config/parse-config.js';

export type { AgentHooks, CreateAgentOptions, SubagentOptions } from './create-agent-options.js';

/**
 * The protocol-agnostic core, built from ready values (a model, tools, extensions, stores,
 * a runtime). Light to construct: the model, SQLite and the tools load on first use, so an
 * adapter can answer its protocol's handshake first. `createDefaultAgent` is the preset that
 * builds these values from a config.
 */
export function createAgent(options: CreateAgentOptions): Agent {
  const core = createAgentCore(withConfigValues(options));
  return {
    sessions: agentSessions(core),
    process: (input, options = {}) => runSessionTurn(core, { input, options }),
    capabilities: () => agentCapabilities(core.extensions.list, options.capabilities),
    cancelToolCall: (sessionId, toolCallId) => core.runningCalls.cancel(sessionId, toolCallId),
    backgroundWork: (sessionId) => core.background.running(sessionId),
    subscribe: (listener) => core.events.subscribe(listener),
    // It opens the session (takes its lease): a request like the others, refused once stopping.
    tools: (sessionId) =>
      whileRunning(core, async () => {
        const live = await (await core.manager()).open(sessionId);
        await core.extensions.ensure(sessionId, core.events.publish);
        const runtime = await core.runtimeFor(live.info.cwd);
        const context = { sessionId, cwd: live.info.cwd, intent: '', signal: new AbortController().signal, runtime, emit: core.events.publish };
        return offeredTools(core, live, context);
      }),
    // Nothing to warm up eagerly: cold start matters more than the first prompt's latency.
    start: async () => undefined,
    stop: (options) => stopAgent(core, options),
    ready: async () => {
      // A balancer stops sending at once: the process still answers (`/healthz`), but takes no new turn.
      if (core.stopped) throw drainingError();
      await (await core.manager()).ping();
    },
    stores: async () => (await core.manager()).stores,
  };
}

/** The deprecated `config` option: its values under the ones given beside it. */
function withConfigValues(options: CreateAgentOptions): CreateAgentOptions {
  const { config, ...values } = options;
  if (config === undefined) return values;
  const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
  return { ...agentValuesFromConfig(parseConfig(config), values.model), ...given };
}
