import { ensureStateFolder } from './storage/state-folder.js';
import { setAsideDamagedFile } from './storage/set-aside-damaged-file.js';
import { isDamagedStoreError } from './storage/store-open-error.js';
import { errorMessage } from './errors/error-message.js';

import { dirname, join, resolve } from 'node:path';
import type { Agent } from './agent/agent.js';
import type { AgentExtension } from './agent/agent-extension.js';
import { createAgent, type CreateAgentOptions } from './agent/create-agent.js';
import { agentValuesFromConfig } from './agent/agent-values-from-config.js';
import { observeModels, type ModelObserver } from './agent/observe-models.js';
import { MCP_CAPABILITIES } from './mcp/mcp-capabilities.js';
import { modelSource } from './agent/model-source.js';
import { memoizeUntilFailure } from './agent/memoize-until-failure.js';
import { createEpisodicExtension } from './context/episodic-extension.js';
import type { PlaitedConfig, PlaitedConfigInput } from './config/schema.js';
import { parseConfig } from './config/parse-config.js';
import type { Log } from './cli/stderr-log.js';
import type { McpRegistry } from './mcp/mcp-registry.js';
import type { EmbeddingModel } from './model/embedding-model.js';
import type { ResolvedLanguageModel } from './model/resolve-model.js';
import type { SearchIndex } from './retrieval/search-index.js';
import type { HybridIndex, HybridIndexOptions } from './retrieval/hybrid-index.js';
import { userConfigDir } from './config/user-config-dir.js';
import { createPermissionRuleFile } from './storage/permission-rule-file.js';
import { commandLayerFor } from './adapters/sandbox/command-layer.js';
import { brokerClient } from './adapters/sandbox/broker-client.js';
import { brokeredRuleStore } from './adapters/sandbox/brokered-rule-store.js';
import { prepareStdioServer } from './adapters/sandbox/prepare-stdio-server.js';
import { projectEmbedder, unavailableReason, usableEmbedder } from './model/open-embedder.js';
import { brokeredStdioSpawner } from './adapters/sandbox/brokered-stdio-spawner.js';
import { createLocalRuntime } from './tools/local-runtime.js';
import { ensureFolder } from './storage/ensure-folder.js';

/** The shared services behind the default extensions, opened on first use. */
export interface AgentServices {
  index: SearchIndex;
  /** Loaded on first use: nothing is embedded, and node-llama-cpp never loads, until something needs a vector. */
  embedder: EmbeddingModel & { close(): Promise<void> };
  registry: McpRegistry;
}

export interface DefaultAgent extends Agent {
  /** The MCP registry (opens the index and connects the configured servers on first call). */
  mcp(): Promise<McpRegistry>;
  services(): Promise<AgentServices>;
}

export interface CreateDefaultAgentOptions {
  /** What `defineConfig` returns, or a parsed config; defaults are filled in (none: all defaults). */
  config?: PlaitedConfigInput | PlaitedConfig;
  log?: Log;
  /** Extra extensions, after the defaults. */
  extensions?: AgentExtension[];
  /** A model instead of `config.agent.model` (MCP sampling, tests). */
  model?: CreateAgentOptions['model'];
  /** The folder whose `.plaited/index.db` holds the hybrid index (default: the process cwd). */
  projectDir?: string;
  /** Wrap every model the agent uses (log each call, a telemetry span per call), in order. */
  modelObservers?: ModelObserver[];
}

/**
 * The preset: a config turned into the values `createAgent` takes, with the project's default
 * extensions (the MCP registry, skills, rules, memory and plans). Wired lazily: nothing heavy
 * (MCP SDK, SQLite, node-llama-cpp) loads before a session needs it, so `initialize` is answered first.
 */
export function createDefaultAgent(options: CreateDefaultAgentOptions): DefaultAgent {
  const config = parseConfig(options.config);
  const log = options.log ?? (() => undefined);
  const projectDir = options.projectDir ?? process.cwd();
  // One model for the agent's turns and the MCP servers' sampling requests, resolved once.
  const baseModel = modelSource(config, options.model, (message) => log('debug', message));
  let servicesPromise: Promise<AgentServices> | undefined;
  const services = () => (servicesPromise ??= openAgentServices(config, projectDir, log, baseModel));

  // Loaded by the core when the first session starts, after the protocol's handshake.
  const extensions = async (): Promise<AgentExtension[]> => {
    // A session hears of a failure as a notice; whoever runs the server, here.
    const { index, registry } = await services().catch((error: unknown) => {
      log('warn', `MCP servers, skills, rules and memory are off until the next session retries: ${errorMessage(error)}`);
      throw error;
    });
    const { createMcpExtension } = await import('./mcp/mcp-extension.js');
    const { createContextExtensions } = await import('./context/context-extensions.js');
    return [createMcpExtension({ registry, config }), ...createContextExtensions({ config, index, warn: (message) => log('warn', message) })];
  };

  // An unreachable model may come back: a failure is retried next turn.
  const model = config.cache.enabled
    ? memoizeUntilFailure(async () => {
        const { semanticCachedModel } = await import('./context/semantic-cached-model.js');
        const embedder = async () => (await usableEmbedder((await services()).embedder)).embedder;
        return semanticCachedModel({ base: baseModel, embedder, config, projectDir, warn: (message) => log('warn', message) });
      })
    : baseModel;
  const agent = createAgent({
    ...observeModels(agentValuesFromConfig(config, model), options.modelObservers ?? []),
    // The MCP extension loads with the first session; a client learns its transports at the handshake.
    capabilities: MCP_CAPABILITIES,
    // "Always" answers persist per project in the user's own folder, outside every project.
    // Inside the whole-agent sandbox that folder is read-only: the launcher writes them (command-broker.ts).
    permissionRules: projectRuleStore(log),
    // Commands outside the sandbox run under the read-only layer where bubblewrap works.
    runtime: (cwd) => createLocalRuntime(cwd, { layer: commandLayerFor(config, (message) => log('info', message)) }),
    loadExtensions: extensions,
    extensions: [
      ...(options.extensions ?? []),
      // Episodes share the one hybrid index, so they are found by meaning when an embedder is loaded.
      ...(config.agent.episodic.enabled ? [createEpisodicExtension({ config, model, index: async () => (await services()).index })] : []),
    ],
  });
  const stop = agent.stop.bind(agent);
  return Object.assign(agent, {
    mcp: async () => (await services()).registry,
    services,
    async stop(options?: { graceMs?: number }) {
      await stop(options);
      const opened = await servicesPromise?.catch(() => undefined);
      await opened?.registry.close().catch(() => undefined);
      opened?.index.close();
      await opened?.embedder.close().catch(() => undefined);
    },
  });
}

/** The embedder, the hybrid index and the MCP registry behind the default extensions. */
async function openAgentServices(config: PlaitedConfig, projectDir: string, log: Log, baseModel: () => Promise<ResolvedLanguageModel>): Promise<AgentServices> {
  const embedder = await projectEmbedder(config, projectDir);
  const indexPath = config.mcp.indexDb ? resolve(projectDir, config.mcp.indexDb) : join(ensureStateFolder(projectDir), 'index.db');
  ensureFolder(dirname(indexPath));
  const index = await openProjectIndex(indexPath, log, {
    embedder,
    embedBatchSize: config.embedder.batchSize,
    // Said once, in one line, when something first needs a vector: a start that never does never hears of it.
    onEmbedderUnavailable: (cause) => log('warn', `embedder unavailable (${unavailableReason(cause)}); discovery uses keyword search only`),
  });
  const spawnStdio = brokeredStdioSpawner();
  const { createMcpRegistry } = await import('./mcp/create-mcp-registry.js');
  const { createModelSampler } = await import('./mcp/create-model-sampler.js');
  const { logRegistryEvent } = await import('./mcp/log-registry-event.js');
  const { logMcpCall } = await import('./mcp/log-mcp-call.js');
  // Config servers connect in the background: a slow server never delays a session; the
  // first turn waits for them up to `mcp.startupWaitMs` (the MCP extension).
  const enabled = config.mcp.servers.filter((server) => server.enabled).length;
  if (enabled > 0) log('info', `MCP: connecting ${enabled} configured ${enabled === 1 ? 'server' : 'servers'}`);
  const registry = await createMcpRegistry({
    config,
    index,
    indexPath,
    roots: [projectDir],
    // A server's sampling request is answered with the agent's own model.
    onSampling: createModelSampler({ model: () => baseModel() }),
    // In the whole-agent sandbox the launcher starts stdio servers, each in a sandbox of its own.
    ...(spawnStdio ? { spawnStdio } : { prepareServer: prepareStdioServer(config, projectDir, log) }),
    onEvent: (event) => logRegistryEvent(log, event),
    onResponse: (info) => logMcpCall(log, info),
    // What servers say (stderr lines, log messages, a call waiting on the user) is for --log-level debug.
    onLog: (entry) => {
      const text = typeof entry.data === 'string' ? entry.data : JSON.stringify(entry.data) ?? '';
      log('debug', `MCP server "${entry.serverId}" ${entry.level}${entry.logger ? ` (${entry.logger})` : ''}: ${text.slice(0, 500)}`);
    },
  });
  return { index, embedder, registry };
}

/**
 * The project's hybrid index. It holds what can be built again (the MCP catalogs, skills, memory
 * pages, cached vectors) and the episodes: a damaged file is moved aside, where its episodes stay
 * recoverable, and a fresh one is built, so MCP servers, skills and memory keep working (a damaged
 * session store, the only copy of the sessions, is refused instead: store-open-error.ts).
 */
async function openProjectIndex(path: string, log: Log, options: Omit<HybridIndexOptions, 'path'>): Promise<HybridIndex> {
  const { openHybridIndex } = await import('./retrieval/hybrid-index.js');
  try {
    return await openHybridIndex({ path, ...options });
  } catch (error) {
    if (!isDamagedStoreError(error)) throw error;
    const aside = setAsideDamagedFile(path);
    log('warn', `the index ${path} was damaged (${errorMessage((error as Error).cause ?? error)}): moved to ${aside} and built afresh; the episodes it held stay there`);
    return openHybridIndex({ path, ...options });
  }
}

/** The project rules in the user's folder; written through the launcher's broker when there is one. */
function projectRuleStore(log: Log) {
  const file = createPermissionRuleFile(userConfigDir());
  const broker = brokerClient();
  return broker ? brokeredRuleStore(file, broker, (message) => log('warn', message)) : file;
}
