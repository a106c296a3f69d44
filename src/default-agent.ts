import { ensureStateFolder } from './storage/state-folder.js';
import { mkdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Agent } from './agent/agent.js';
import type { AgentExtension } from './agent/agent-extension.js';
import { createAgent, type CreateAgentOptions } from './agent/create-agent.js';
import { modelSource } from './agent/model-source.js';
import { memoizeUntilFailure } from './agent/memoize-until-failure.js';
import { createEpisodicExtension } from './context/episodic-extension.js';
import type { McpServerConfig, PlaitedConfig, PlaitedConfigInput } from './config/schema.js';
import { parseConfig } from './config/parse-config.js';
import type { Log } from './cli/stderr-log.js';
import type { McpRegistry } from './mcp/mcp-registry.js';
import type { EmbeddingModel } from './model/embedding-model.js';
import type { ResolvedLanguageModel } from './model/resolve-model.js';
import type { SearchIndex } from './retrieval/search-index.js';
import { errorMessage } from './errors/error-message.js';
import { userConfigDir } from './config/user-config-dir.js';
import { createPermissionRuleFile } from './storage/permission-rule-file.js';
import { commandLayerFor } from './adapters/sandbox/command-layer.js';
import { brokerClient } from './adapters/sandbox/broker-client.js';
import { brokeredRuleStore } from './adapters/sandbox/brokered-rule-store.js';
import { brokeredStdioSpawner } from './adapters/sandbox/brokered-stdio-spawner.js';
import { createLocalRuntime } from './tools/local-runtime.js';

/** The shared services behind the default extensions, opened on first use. */
export interface AgentServices {
  index: SearchIndex;
  embedder: EmbeddingModel | undefined;
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
}

/**
 * The agent with the project's default extensions: the MCP registry, skills, rules,
 * memory and plans. Wired lazily: nothing heavy (MCP SDK, SQLite, node-llama-cpp) loads
 * before a session needs it, so `initialize` is answered first.
 */
export function createDefaultAgent(options: CreateDefaultAgentOptions): DefaultAgent {
  const config = parseConfig(options.config);
  const log = options.log ?? (() => undefined);
  const projectDir = options.projectDir ?? process.cwd();
  let servicesPromise: Promise<AgentServices> | undefined;
  // One model for the agent's turns and the MCP servers' sampling requests, resolved once.
  const baseModel = modelSource(config, options.model, (message) => log('debug', message));

  const services = () =>
    (servicesPromise ??= (async () => {
      const opened = await openEmbedder(config, projectDir);
      const embedder = opened.embedder;
      const indexPath = config.mcp.indexDb ? resolve(projectDir, config.mcp.indexDb) : join(ensureStateFolder(projectDir), 'index.db');
      mkdirSync(dirname(indexPath), { recursive: true });
      const { openHybridIndex } = await import('./retrieval/hybrid-index.js');
      const hybrid = await openHybridIndex({ path: indexPath, embedder, embedBatchSize: config.embedder.batchSize });
      // Said once, in one line, when discovery first runs: a start that never searches never hears of it.
      const index = opened.unavailable
        ? (await import('./retrieval/notify-first-search.js')).notifyFirstSearch(hybrid, () =>
            log('warn', `embedder unavailable (${opened.unavailable}); discovery uses keyword search only`),
          )
        : hybrid;
      const { createMcpRegistry } = await import('./mcp/create-mcp-registry.js');
      const { createModelSampler } = await import('./mcp/create-model-sampler.js');
      const { logRegistryEvent } = await import('./mcp/log-registry-event.js');
      // Config servers connect in the background: a slow server never delays a session; the
      // first turn waits for them up to `mcp.startupWaitMs` (the MCP extension).
      const enabled = config.mcp.servers.filter((server) => server.enabled).length;
      if (enabled > 0) log('info', `MCP: connecting ${enabled} configured ${enabled === 1 ? 'server' : 'servers'}`);
      const spawnStdio = brokeredStdioSpawner();
      const registry = await createMcpRegistry({
        config,
        index,
        indexPath,
        roots: [projectDir],
        // A server's sampling request is answered with the agent's own model.
        onSampling: createModelSampler({ model: () => baseModel() }),
        // In the whole-agent sandbox the launcher starts stdio servers, each in a sandbox of its own.
        ...(spawnStdio
          ? { spawnStdio }
          : { prepareServer: config.adapters.sandbox.commands ? sandboxStdioServer(config, projectDir) : layeredStdioServer(config, projectDir, log) }),
        onEvent: (event) => logRegistryEvent(log, event),
      });
      return { index, embedder, registry };
    })());

  // Loaded by the core when the first session starts, after the protocol's handshake.
  const extensions = async (): Promise<AgentExtension[]> => {
    const { index, embedder, registry } = await services();
    const { createMcpExtension } = await import('./mcp/mcp-extension.js');
    const { createContextExtensions } = await import('./context/context-extensions.js');
    return [createMcpExtension({ registry, config }), ...createContextExtensions({ config, index, embedder })];
  };

  // An unreachable model may come back: a failure is retried next turn.
  const model = config.cache.enabled ? memoizeUntilFailure(() => cachedModel(baseModel, services, config, projectDir, log)) : baseModel;
  const agent = createAgent({
    config,
    model,
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
    async stop() {
      await stop();
      if (servicesPromise) {
        const opened = await servicesPromise.catch(() => undefined);
        await opened?.registry.close().catch(() => undefined);
        opened?.index.close();
        await opened?.embedder?.close?.().catch(() => undefined);
      }
    },
  });
}

/**
 * The model behind the semantic cache (`cache.enabled`). Entries persist in
 * `.plaited/semantic-cache.json`; without an embedder the model is used as is.
 */
async function cachedModel(
  base: () => Promise<ResolvedLanguageModel>,
  services: () => Promise<AgentServices>,
  config: PlaitedConfig,
  projectDir: string,
  log: Log,
): Promise<ResolvedLanguageModel> {
  const model = await base();
  const { embedder } = await services();
  if (!embedder || model.specificationVersion !== 'v3') {
    log('warn', 'semantic cache needs an embedder and a v3 model; answering without it');
    return model;
  }
  const file = resolve(projectDir, '.plaited/semantic-cache.json');
  const { createContextCache } = await import('./context/context-extensions.js');
  const { withSemanticCache } = await import('./context/semantic-cache-model.js');
  let initialEntries;
  try {
    initialEntries = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    initialEntries = undefined; // none yet, or unreadable: start empty
  }
  const cache = createContextCache({
    config,
    embedder,
    initialEntries,
    onPersist: (entries) => writeFile(file, JSON.stringify(entries)),
  });
  return cache ? withSemanticCache(model, cache) : model;
}

/** Per-command sandbox mode: stdio MCP servers run under the same policy as bash commands. */
function sandboxStdioServer(config: PlaitedConfig, projectDir: string) {
  return async (server: McpServerConfig, scope: { cwd?: string; roots?: readonly string[] }): Promise<McpServerConfig> => {
    if (server.transport !== 'stdio' || !server.command) return server;
    const { wrapCommandForSandbox } = await import('./adapters/sandbox/wrap-command-for-sandbox.js');
    const { sandboxPolicyFromConfig } = await import('./adapters/sandbox/sandbox-policy.js');
    const cwd = scope.cwd ?? projectDir;
    // The session's other roots (ACP additionalDirectories) are workspace for its servers too.
    const additionalRoots = (scope.roots ?? []).filter((root) => root !== cwd);
    const wrapped = await wrapCommandForSandbox(server.command, server.args, sandboxPolicyFromConfig(config, cwd, { additionalRoots }));
    return { ...server, command: wrapped.command, args: wrapped.args };
  };
}

/** The project rules in the user's folder; written through the launcher's broker when there is one. */
function projectRuleStore(log: Log) {
  const file = createPermissionRuleFile(userConfigDir());
  const broker = brokerClient();
  return broker ? brokeredRuleStore(file, broker, (message) => log('warn', message)) : file;
}

/** Without the command sandbox: stdio MCP servers run under the read-only layer, like bash commands. */
function layeredStdioServer(config: PlaitedConfig, projectDir: string, log: Log) {
  return async (server: McpServerConfig, scope: { cwd?: string; roots?: readonly string[] }): Promise<McpServerConfig> => {
    const layer = server.transport === 'stdio' && server.command ? commandLayerFor(config, (message) => log('info', message)) : null;
    if (!layer || !server.command) return server;
    const cwd = scope.cwd ?? projectDir;
    const [command, ...args] = await layer.wrapArgv([server.command, ...server.args], [cwd, ...(scope.roots ?? []).filter((root) => root !== cwd)]);
    return { ...server, command: command!, args };
  };
}

/**
 * The configured embedder, checked once. Without one (offline and not cached, or a bad
 * file) discovery falls back to BM25 alone: search degrades, nothing fails. `unavailable`
 * is the reason in one short line (node-llama-cpp's messages run to several).
 */
async function openEmbedder(config: PlaitedConfig, projectDir: string): Promise<{ embedder?: EmbeddingModel; unavailable?: string }> {
  try {
    mkdirSync(resolve(projectDir, '.plaited'), { recursive: true });
    const { createEmbedder } = await import('./model/embedder.js');
    const { createDownloadProgressReporter } = await import('./model/download-progress.js');
    const embedder = createEmbedder({
      model: config.embedder.model,
      onDownloadProgress: createDownloadProgressReporter(process.stderr, `Downloading embedder ${config.embedder.model}`),
      threads: config.embedder.threads,
      batchSize: config.embedder.batchSize,
      cacheDb: join(ensureStateFolder(projectDir), 'index.db'),
    });
    await embedder.dimensions();
    return { embedder };
  } catch (error) {
    const firstLine = errorMessage(error).split('\n')[0]!.trim();
    return { unavailable: firstLine.length > 160 ? `${firstLine.slice(0, 157)}...` : firstLine };
  }
}
