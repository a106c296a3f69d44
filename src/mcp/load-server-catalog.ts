import type { McpServerConfig } from '../config/schema.js';
import type { IndexDocument } from '../retrieval/search-index.js';
import type { ToolContext, ToolOrigin } from '../contracts/tool.js';
import { createMcpTool, type McpTool } from './create-mcp-tool.js';
import type { JsonSchemaValidator } from './json-schema-validator.js';
import { mcpCatalogDocuments } from './mcp-catalog-documents.js';
import type { McpClient } from './mcp-client.js';
import type { McpListKind, McpProgress, McpToolDefinition } from './mcp-client-options.js';
import type { ListedPrompt, ListedResource, ListedResourceTemplate, McpRegistryEvent } from './mcp-registry-types.js';
import { distinctMcpToolName, mcpToolName } from './tool-name.js';

/** What the registry holds for one connected server. */
export interface ServerState {
  namespace: string;
  config: McpServerConfig;
  /** The server as the user configured it (before `prepareServer` wraps its command), for permission rules. */
  origin: ToolOrigin;
  sessionId?: string;
  roots: string[];
  client: McpClient;
  tools: Map<string, McpTool>;
  resources: ListedResource[];
  templates: ListedResourceTemplate[];
  prompts: Map<string, ListedPrompt>;
  dirty: Set<McpListKind>;
  refreshing?: Promise<void>;
  listeners: Map<string, Set<(uri: string) => void>>;
  /**
   * The last URIs its tool results linked to (`resource_link`): read from this server, since MCP
   * does not promise that a linked resource is listed.
   */
  linkedUris: Set<string>;
  /** Tool calls in flight on this server: a request the server sends meanwhile belongs to one of them. */
  activeCalls: Set<ToolContext>;
  removed: boolean;
  /** The removal under way (`removeState`): every caller waits for the same one. */
  removing?: Promise<void>;
  /** From `prepareServer`: called once the server is removed and its process gone. */
  release?(): Promise<void>;
}

export interface LoadCatalogOptions {
  validator: JsonSchemaValidator;
  emit(event: McpRegistryEvent): void;
}

/**
 * Re-reads the given kinds of a server's catalog into its state (a list that fails keeps its
 * previous items and is reported as `catalog-error`) and returns the documents of the whole
 * catalog, ready for `SearchIndex.sync` of the server's namespace.
 */
export async function loadServerCatalog(state: ServerState, kinds: ReadonlySet<McpListKind>, options: LoadCatalogOptions): Promise<IndexDocument[]> {
  const { client, config, sessionId } = state;
  const reads: Promise<void>[] = [];
  if (kinds.has('tools')) {
    // ajv loads with the first server that lists tools, not with the registry, while the list is on its way.
    const listed = Promise.all([client.listTools(), options.validator.load()]);
    reads.push(listed.then(([definitions]) => void (state.tools = buildTools(state, definitions, options))));
  }
  if (kinds.has('resources')) {
    reads.push(client.listResources().then((resources) => void (state.resources = resources.map((resource) => ({ ...resource, serverId: config.id })))));
    reads.push(client.listResourceTemplates().then((templates) => void (state.templates = templates.map((template) => ({ ...template, serverId: config.id })))));
  }
  if (kinds.has('prompts')) {
    reads.push(
      client.listPrompts().then((prompts) => {
        state.prompts = new Map(
          prompts.map((prompt) => {
            const name = mcpToolName(config.id, prompt.name);
            return [name, { ...prompt, name, mcpName: prompt.name, serverId: config.id }];
          }),
        );
      }),
    );
  }
  for (const result of await Promise.allSettled(reads)) {
    if (result.status === 'rejected') {
      const error = result.reason instanceof Error ? result.reason : new Error(String(result.reason));
      options.emit({ type: 'catalog-error', serverId: config.id, sessionId, error });
    }
  }
  const identity = client.identity();
  const group = [config.name ?? identity?.title ?? identity?.name, config.description, identity?.instructions].filter(Boolean).join('. ').slice(0, 1_000);
  return mcpCatalogDocuments({
    namespace: state.namespace,
    serverId: config.id,
    group,
    tools: [...state.tools.values()],
    resources: state.resources,
    templates: state.templates,
    prompts: [...state.prompts.values()].map((prompt) => ({ ...prompt, name: prompt.mcpName, ref: prompt.name })),
  });
}

function buildTools(state: ServerState, definitions: readonly McpToolDefinition[], options: LoadCatalogOptions): Map<string, McpTool> {
  const tools = new Map<string, McpTool>();
  const { origin } = state;
  for (const definition of definitions) {
    let name = mcpToolName(state.config.id, definition.name);
    if (tools.has(name)) {
      // Both stay callable: the later one takes a name of its own (a hash of its original name).
      const taken = name;
      name = distinctMcpToolName(state.config.id, definition.name);
      if (tools.has(name)) continue; // the same name listed twice: the server's own mistake
      options.emit({ type: 'name-collision', serverId: state.config.id, sessionId: state.sessionId, name: taken, tool: definition.name, offeredAs: name });
    }
    tools.set(
      name,
      createMcpTool({
        name,
        serverId: state.config.id,
        origin,
        definition,
        validator: options.validator,
        trustAnnotations: state.config.trustAnnotations,
        maxResultChars: state.config.maxResultChars,
        call: async (args, { signal, context }) => {
          state.activeCalls.add(context);
          try {
            const result = await state.client.callTool(definition.name, args, {
              signal,
              definition,
              // Shown to the user on the tool call while it runs.
              onProgress: (progress) => context.onUpdate({ content: [{ type: 'text', text: progressLine(progress) }] }),
            });
            rememberLinks(state.linkedUris, result.content);
            return result;
          } finally {
            state.activeCalls.delete(context);
          }
        },
      }),
    );
  }
  return tools;
}

function progressLine(progress: McpProgress): string {
  const share = progress.total ? `${progress.progress}/${progress.total}` : String(progress.progress);
  return progress.message ? `${progress.message.slice(0, 300)} (${share})` : `progress ${share}`;
}

/** Enough for the links a conversation still refers to; the oldest go first. */
const MAX_LINKED_URIS = 1_000;

function rememberLinks(linked: Set<string>, content: ReadonlyArray<{ type: string; uri?: unknown }> | undefined): void {
  for (const block of content ?? []) {
    if (block.type !== 'resource_link' || typeof block.uri !== 'string') continue;
    linked.delete(block.uri);
    linked.add(block.uri);
    if (linked.size > MAX_LINKED_URIS) linked.delete(linked.values().next().value!);
  }
}
