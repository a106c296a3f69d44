import type { ElicitResult } from '@modelcontextprotocol/client';
import type { ElicitationQuestion } from '../contracts/runtime.js';
import type { PlaitedConfig } from '../config/schema.js';
import type { EmbeddingModel } from '../model/embedding-model.js';
import { openHybridIndex } from '../retrieval/hybrid-index.js';
import type { SearchIndex } from '../retrieval/search-index.js';
import { askElicitation } from './ask-elicitation.js';
import { guardSampling } from './guard-sampling.js';
import { guardElicitation } from './guard-elicitation.js';
import { McpRegistry } from './mcp-registry.js';
import type { McpRegistryEvent, McpRegistryOptions } from './mcp-registry-types.js';

export interface CreateMcpRegistryOptions extends Omit<McpRegistryOptions, 'index' | 'ownsIndex'> {
  config: PlaitedConfig;
  /** The SQLite file of the hybrid index (`.plaited/index.db`); ignored when `index` is given. */
  indexPath: string;
  /** An index shared with other discovery modules (skills, rules, memory); the caller closes it. */
  index?: SearchIndex;
  /** Without one, discovery is BM25 only. */
  embedder?: EmbeddingModel;
  /** Subscribed before any server connects, so no status event is missed. */
  onEvent?(event: McpRegistryEvent): void;
}

/**
 * Opens the index and starts the registry with the config's servers connecting in the
 * background: start-up never waits on a slow server (use `registry.idle()` to wait, e.g. in tests).
 * A server that fails to connect is reported through `onEvent` and keeps retrying.
 */
export async function createMcpRegistry(options: CreateMcpRegistryOptions): Promise<McpRegistry> {
  const { config, indexPath, embedder, onEvent, index: shared, ...registryOptions } = options;
  const index = shared ?? (await openHybridIndex({ path: indexPath, embedder, embedBatchSize: config.embedder.batchSize }));
  const registry = new McpRegistry({
    ...registryOptions,
    // A server's sampling spends the user's model: asked (or per its config rule) and rate-limited.
    ...(registryOptions.onSampling ? { onSampling: guardSampling(registryOptions.onSampling) } : {}),
    // By default a server's question goes to the user as a permission-style question, through the
    // tool call it arrived during; outside a tool call there is nobody to ask, so it is declined.
    onElicitation: guardElicitation(
      registryOptions.onElicitation ??
      (async (request, context) => {
        // A client that takes structured questions (ACP elicitation) gets the server's own form.
        if (context.elicit) {
          const answer = await context.elicit(request as ElicitationQuestion, { signal: context.signal, ...(context.toolCallId ? { toolCallId: context.toolCallId } : {}) });
          return answer as ElicitResult;
        }
        return context.emit && context.sessionId !== undefined
          ? askElicitation(request, { sessionId: context.sessionId, serverId: context.serverId, emit: context.emit, signal: context.signal })
          : { action: 'decline' };
      }),
    ),
    index,
    ownsIndex: shared === undefined,
  });
  if (onEvent) registry.subscribe(onEvent);
  // Configured servers are listed (connecting) as soon as this returns.
  if (config.mcp.servers.some((server) => server.enabled)) await registry.loadSdk();
  for (const server of config.mcp.servers) {
    if (server.enabled) void registry.servers.add(server).catch(() => undefined);
  }
  return registry;
}
