import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../config/schema.js';
import type { SearchHit } from '../retrieval/search-index.js';
import type { AnyTool, ToolContext, ToolOrigin, ToolResult } from '../contracts/tool.js';
import { mcpServerOrigin } from './mcp-server-origin.js';
import { errorResult } from '../tools/tool-result.js';
import { detachedContext } from './detached-tool-context.js';
import type { McpTool } from './create-mcp-tool.js';
import { JsonSchemaValidator } from './json-schema-validator.js';
import { documentId, LOCAL_NAMESPACE, localDocument, type McpDocumentKind } from './mcp-catalog-documents.js';
import type { McpClient, McpListKind } from './mcp-client.js';
import { loadServerCatalog, type ServerState } from './load-server-catalog.js';
import { McpClientError } from './mcp-client-error.js';
import type {
  DiscoveryHit,
  ListedPrompt,
  ListedResource,
  ListedResourceTemplate,
  LocalPrompt,
  LocalResource,
  McpRegistryEvent,
  McpRegistryOptions,
  McpScope,
  McpServerInfo,
  PreparedServer,
  ToolMatch,
} from './mcp-registry-types.js';
import { mcpToolPrefix } from './tool-name.js';
import { asError, callOf, stateKey, templateMatcher } from './mcp-registry-helpers.js';
import { resolveDiscoveryHit } from './resolve-discovery-hit.js';
import { serverInfo } from './server-info.js';
import { preflightMcpServer } from './preflight-mcp-server.js';
import { errorMessage } from '../errors/error-message.js';

export type * from './mcp-registry-types.js';

export { LOCAL_NAMESPACE };
const ALL_KINDS: readonly McpListKind[] = ['tools', 'resources', 'prompts'];

/**
 * The one registry of MCP servers and what they offer: one `McpClient` per server, every tool,
 * resource and prompt indexed in the hybrid index (one namespace per server, re-synced when that
 * server says its lists changed), tools turned into `Tool`s named `mcp__<server>__<tool>`.
 * Config servers are global; servers added with a `sessionId` are visible to that session only
 * and close with it, and one named like a global server takes its place in that session. Nothing here throws on a server's behalf except `servers.add`, which
 * reports a failed connect (the server keeps retrying in the background).
 */
export class McpRegistry {
  private readonly options: McpRegistryOptions;
  private readonly states = new Map<string, ServerState>();
  private readonly validator = new JsonSchemaValidator();
  private readonly listeners = new Set<(event: McpRegistryEvent) => void>();
  private readonly pending = new Set<Promise<unknown>>();
  /** Servers being removed: out of `states` already, so `close` waits for them here. */
  private readonly removals = new Set<Promise<void>>();
  private readonly localTools = new Map<string, AnyTool>();
  private readonly localResources = new Map<string, LocalResource>();
  private readonly localPrompts = new Map<string, LocalPrompt>();
  /** Servers whose first connect and catalog load are still under way, by `stateKey` (a session's too). */
  private readonly starting = new Map<string, { id: string; sessionId?: string; started: Promise<unknown> }>();
  private closed = false;
  /** Per session, its servers' adds still in preparation: a close of the session cancels them. */
  private readonly preparing = new Map<string, Set<{ cancelled: boolean }>>();
  /** The MCP SDK's client class, once loaded (see `loadSdk`). */
  private clientClass?: typeof McpClient;

  constructor(options: McpRegistryOptions) {
    this.options = options;
  }

  readonly tools = {
    /** The tools a scope may use: its servers' tools and the ones registered in-process. */
    list: (scope: McpScope = {}): AnyTool[] => [...this.scopeStates(scope).flatMap((state) => [...state.tools.values()]), ...this.localTools.values()],
    get: (name: string, scope: McpScope = {}): AnyTool | undefined => this.findTool(name, scope),
    /** Reverse lookup of a normalized name: which server and which of its tools. */
    resolve: (name: string, scope: McpScope = {}): { serverId: string; toolName: string } | undefined => {
      const tool = this.findTool(name, scope) as Partial<McpTool> | undefined;
      return tool?.serverId && tool.mcpName ? { serverId: tool.serverId, toolName: tool.mcpName } : undefined;
    },
    search: async (query: string, options: McpScope & { limit?: number } = {}): Promise<ToolMatch[]> => {
      const hits = await this.search(query, ['tool'], options);
      return hits.flatMap((hit) => (hit.kind === 'tool' ? [{ tool: hit.tool, score: hit.score }] : []));
    },
    register: async (tool: AnyTool, options: { group?: string } = {}): Promise<void> => {
      this.localTools.set(tool.name, tool);
      await this.options.index.upsert([localDocument('tool', tool.name, { name: tool.name, description: tool.description }, options.group)]);
    },
    unregister: (name: string): void => {
      if (this.localTools.delete(name)) this.options.index.remove([documentId('tool', LOCAL_NAMESPACE, name)]);
    },
    /** Validates and runs a tool; unknown tools and bad arguments come back as error results. */
    execute: async (name: string, args: unknown, options: McpScope & { signal?: AbortSignal; context?: ToolContext } = {}): Promise<ToolResult> => {
      const tool = this.findTool(name, options);
      if (!tool) return errorResult(`Unknown tool: ${name}`);
      const checked = tool.validate(args);
      if (!checked.ok) return errorResult(checked.error);
      const context = options.context ?? detachedContext(options.sessionId ?? '', options.signal);
      try {
        return await tool.execute(checked.value, context);
      } catch (error) {
        return errorResult(`Tool ${name} failed: ${errorMessage(error)}`);
      }
    },
  };

  readonly resources = {
    list: (scope: McpScope = {}): ListedResource[] => [...this.scopeStates(scope).flatMap((state) => state.resources), ...this.localResources.values()],
    templates: (scope: McpScope = {}): ListedResourceTemplate[] => this.scopeStates(scope).flatMap((state) => state.templates),
    search: async (query: string, options: McpScope & { limit?: number } = {}) => this.search(query, ['resource', 'resource-template'], options),
    register: async (resource: LocalResource): Promise<void> => {
      this.localResources.set(resource.uri, resource);
      await this.options.index.upsert([
        localDocument('resource', resource.uri, { name: resource.name, title: resource.title, description: resource.description }),
      ]);
    },
    read: async (uri: string, options: McpScope & { signal?: AbortSignal } = {}): Promise<ReadResourceResult> => {
      const local = this.localResources.get(uri);
      if (local) return local.read();
      return (await this.serverForUri(uri, options)).client.readResource(uri, { signal: options.signal });
    },
    /** Calls `onUpdate` when the server reports the resource changed; resolves to an unsubscribe. */
    subscribe: async (uri: string, onUpdate: (uri: string) => void, scope: McpScope = {}): Promise<() => Promise<void>> => {
      const state = await this.serverForUri(uri, scope);
      let set = state.listeners.get(uri);
      if (!set) state.listeners.set(uri, (set = new Set()));
      set.add(onUpdate);
      if (set.size === 1) {
        try {
          await state.client.subscribeResource(uri);
        } catch (error) {
          // Not subscribed: a listener left behind would make the next subscribe skip the server call.
          set.delete(onUpdate);
          throw error;
        }
      }
      return async () => {
        set.delete(onUpdate);
        if (set.size === 0 && !state.removed) await state.client.unsubscribeResource(uri).catch(() => undefined);
      };
    },
  };

  readonly prompts = {
    list: (scope: McpScope = {}): ListedPrompt[] => [
      ...this.scopeStates(scope).flatMap((state) => [...state.prompts.values()]),
      ...[...this.localPrompts.values()].map((prompt) => ({ ...prompt, mcpName: prompt.name })),
    ],
    search: async (query: string, options: McpScope & { limit?: number } = {}) => this.search(query, ['prompt'], options),
    register: async (prompt: LocalPrompt): Promise<void> => {
      this.localPrompts.set(prompt.name, prompt);
      const args = (prompt.arguments ?? []).map((arg) => `${arg.name}: ${arg.description ?? ''}`).join(' ');
      await this.options.index.upsert([localDocument('prompt', prompt.name, { name: prompt.name, title: prompt.title, description: prompt.description, args })]);
    },
    /** `name` is the listed (normalized) name; arguments are strings, as MCP prompts take them. */
    get: async (name: string, args: Record<string, string> = {}, options: McpScope & { signal?: AbortSignal } = {}): Promise<GetPromptResult> => {
      const local = this.localPrompts.get(name);
      if (local) return local.get(args);
      for (const state of this.scopeStates(options)) {
        const prompt = state.prompts.get(name);
        if (prompt) return state.client.getPrompt(prompt.mcpName, args, { signal: options.signal });
      }
      throw new McpClientError({ code: 'not_found', serverId: '', message: `no prompt named "${name}"` });
    },
  };

  readonly servers = {
    /**
     * Connects a server and indexes its catalog. Rejects with an `McpClientError` when the first
     * connect fails; the server stays listed (status `reconnecting`/`failed`) and keeps retrying.
     */
    add: async (config: McpServerConfig, options: McpScope & { cwd?: string; roots?: readonly string[] } = {}): Promise<McpServerInfo> => {
      const preparing = this.preparingIn(options.sessionId);
      let state: ServerState;
      let prepared: PreparedServer = { config };
      try {
        // E.g. the per-command sandbox rewrites a stdio server's command to run it isolated.
        if (this.options.prepareServer) prepared = await this.options.prepareServer(config, options);
        const Client = this.clientClass ?? (await this.loadSdk());
        // Its session closed meanwhile: a server started now would outlive it.
        if (preparing.cancelled) throw new McpClientError({ code: 'session_closed', serverId: config.id, message: `session ${options.sessionId} closed while MCP server "${config.id}" was being prepared, so it was not started` });
        state = this.createState(Client, prepared.config, options, () => preflightMcpServer(config), mcpServerOrigin(config));
      } catch (error) {
        await prepared.release?.();
        throw error;
      } finally {
        preparing.done();
      }
      state.release = prepared.release;
      if (!config.enabled) return serverInfo(state);
      const started = (async () => {
        await this.track(state.client.connect());
        await this.idleOf(state);
      })();
      const key = stateKey(config.id, options.sessionId);
      this.starting.set(key, { id: config.id, sessionId: options.sessionId, started });
      const forget = () => void (this.starting.get(key)?.started === started && this.starting.delete(key));
      started.then(forget, forget);
      await started;
      return serverInfo(state);
    },
    /**
     * Waits until every server of the scope (the global ones, and the session's when a session
     * is given) has finished its first connect and catalog load, or `timeoutMs` has passed;
     * resolves to the ids still starting then (empty when all are done). A failed connect counts
     * as done: it is reported through the server's status.
     */
    settled: async (timeoutMs: number, scope: McpScope = {}): Promise<string[]> => {
      const inScope = () => [...this.starting.values()].filter((entry) => entry.sessionId === undefined || entry.sessionId === scope.sessionId);
      const pending = inScope();
      if (pending.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
        await Promise.race([Promise.allSettled(pending.map((entry) => entry.started)), timeout]);
        clearTimeout(timer);
      }
      return inScope().map((entry) => entry.id);
    },
    remove: async (id: string, scope: McpScope = {}): Promise<void> => {
      const state = this.states.get(stateKey(id, scope.sessionId));
      if (state) await this.removeState(state);
    },
    /** With a session: the global servers and that session's; without: every server. */
    list: (scope: McpScope = {}): McpServerInfo[] =>
      (scope.sessionId === undefined ? [...this.states.values()] : this.scopeStates(scope)).map((state) => serverInfo(state)),
    get: (id: string, scope: McpScope = {}): McpServerInfo | undefined => {
      const state = this.states.get(stateKey(id, scope.sessionId)) ?? this.states.get(stateKey(id, undefined));
      return state ? serverInfo(state) : undefined;
    },
  };

  /** Tools, resources and prompts ranked together for an intent; the index ranks a multi-step intent per step. */
  async discoverRelevant(intent: string, options: McpScope & { limit?: number; kinds?: readonly McpDocumentKind[] } = {}): Promise<DiscoveryHit[]> {
    const kinds = options.kinds ?? ['tool', 'resource', 'resource-template', 'prompt'];
    return this.search(intent, kinds, { ...options, limit: options.limit ?? 8 });
  }

  /**
   * Waits (at most `timeoutMs`) until the scope's catalogs hold every list change their servers
   * announced so far: a tool that makes its server add tools (a toolset switched on, a login) is
   * followed by a step that can call them. Resolves at once when nothing is pending.
   */
  async catalogsCurrent(scope: McpScope, timeoutMs: number): Promise<void> {
    // A server that is down may hold a re-read until it is back: not worth a step's wait.
    const states = this.scopeStates(scope).filter((state) => state.client.status === 'connected');
    const current = Promise.all(
      states.map(async (state) => {
        await state.client.listChangesPassedOn();
        await this.idleOf(state);
      }),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([current.catch(() => undefined), timeout]);
    clearTimeout(timer);
  }

  /** Closes every server that belongs to the session and drops its catalog. */
  async closeSession(sessionId: string): Promise<void> {
    for (const add of this.preparing.get(sessionId) ?? []) add.cancelled = true;
    await Promise.all([...this.states.values()].filter((state) => state.sessionId === sessionId).map((state) => this.removeState(state)));
  }

  subscribe(listener: (event: McpRegistryEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Settles once every connect and re-index under way has finished (successfully or not). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Global catalogs stay indexed, so the next start re-syncs them for free (content hashes);
    // session catalogs die with their sessions.
    await Promise.all([...this.states.values()].map((state) => this.removeState(state, { keepIndex: state.sessionId === undefined })));
    await Promise.allSettled([...this.removals, ...this.pending]);
    if (this.options.ownsIndex) this.options.index.close();
  }

  /**
   * Loads the MCP SDK now. It loads with the first server otherwise, not with the registry (most
   * sessions have none); once loaded, a server added is listed before `add` first awaits.
   */
  async loadSdk(): Promise<typeof McpClient> {
    this.clientClass ??= (await import('./mcp-client.js')).McpClient;
    return this.clientClass;
  }

  /** An add in preparation for a session's scope, cancelled if the session closes before it starts its server. */
  private preparingIn(sessionId: string | undefined): { readonly cancelled: boolean; done(): void } {
    const add = { cancelled: false };
    if (sessionId === undefined) return { cancelled: false, done: () => undefined };
    let adds = this.preparing.get(sessionId);
    if (!adds) this.preparing.set(sessionId, (adds = new Set()));
    adds.add(add);
    return {
      get cancelled() {
        return add.cancelled;
      },
      done: () => {
        adds.delete(add);
        if (adds.size === 0) this.preparing.delete(sessionId);
      },
    };
  }

  private createState(
    Client: typeof McpClient,
    config: McpServerConfig,
    scope: McpScope & { cwd?: string; roots?: readonly string[] },
    preflight: () => McpClientError | undefined,
    origin: ToolOrigin,
  ): ServerState {
    const { sessionId } = scope;
    if (this.closed) throw new McpClientError({ code: 'not_connected', serverId: config.id, message: 'the MCP registry is closed' });
    // Within one scope only: a session's server named like a config server shadows it there (scopeStates).
    const prefix = mcpToolPrefix(config.id);
    const clash = [...this.states.values()].find(
      (state) => state.sessionId === sessionId && (state.config.id === config.id || mcpToolPrefix(state.config.id) === prefix),
    );
    if (clash || this.states.has(stateKey(config.id, sessionId))) {
      throw new McpClientError({
        code: 'duplicate_server',
        serverId: config.id,
        message: `an MCP server "${clash?.config.id ?? config.id}" is already registered${sessionId ? ` for session ${sessionId}` : ''}; ids must differ in their letters and digits`,
      });
    }
    const { index: _index, ownsIndex: _owns, roots, onSampling, onElicitation, ...clientOptions } = this.options;
    const state: ServerState = {
      namespace: sessionId ? `mcp:${sessionId}:${config.id}` : `mcp:${config.id}`,
      config,
      origin,
      sessionId,
      // A session's servers see its workspace: the cwd and any additional directories.
      roots: scope.roots ? [...scope.roots] : scope.cwd ? [scope.cwd] : [...(roots ?? [process.cwd()])],
      tools: new Map(),
      resources: [],
      templates: [],
      prompts: new Map(),
      dirty: new Set(),
      listeners: new Map(),
      linkedUris: new Set(),
      activeCalls: new Set(),
      removed: false,
      client: undefined as unknown as McpClient,
    };
    state.client = new Client(config, {
      ...clientOptions,
      roots: () => state.roots,
      preflight,
      // The operator's config may name the agent's environment; a session's server (an ACP client's) may not.
      expandVariables: sessionId === undefined,
      onSampling: onSampling && ((request, context) => onSampling(request, { ...context, ...callOf(state), server: state.config })),
      onElicitation: onElicitation && ((request, context) => onElicitation(request, { ...context, ...callOf(state) })),
      onListChanged: (kind) => void this.refresh(state, [kind]),
      onResourceUpdated: (uri) => state.listeners.get(uri)?.forEach((listener) => listener(uri)),
      onSkippedItem: (item) => {
        this.emit({ type: 'catalog-item-skipped', serverId: config.id, sessionId, method: item.method, name: item.name, reason: item.reason });
      },
      onStatus: (status, error) => {
        this.emit({ type: 'server-status', serverId: config.id, sessionId, status, error });
        // Every (re)connect re-reads the catalog: a restarted server may serve another one.
        if (status === 'connected') void this.refresh(state, ALL_KINDS);
      },
    });
    this.states.set(stateKey(config.id, sessionId), state);
    this.tellShadowing(state);
    return state;
  }

  /** Logs each pair of a session's server and the global one it shadows in that session, whichever came second. */
  private tellShadowing(added: ServerState): void {
    const prefix = mcpToolPrefix(added.config.id);
    for (const other of this.states.values()) {
      if (other === added || mcpToolPrefix(other.config.id) !== prefix) continue;
      const [own, global] = added.sessionId === undefined ? [other, added] : [added, other];
      if (own.sessionId === undefined || global.sessionId !== undefined) continue;
      this.emit({ type: 'server-shadowed', serverId: own.config.id, sessionId: own.sessionId, shadowed: global.config.id });
    }
  }

  /**
   * Removes a server once; a second caller, and the registry's close, wait for the same removal.
   * A session's server whose session the client had just closed was out of `states` at once, so
   * the agent's stop did not wait for it: the process exited while the server was still going,
   * and its layer's placeholders stayed in the project.
   */
  private removeState(state: ServerState, options: { keepIndex?: boolean } = {}): Promise<void> {
    if (!state.removing) {
      const removing = this.tearDown(state, options);
      state.removing = removing;
      this.removals.add(removing);
      const forget = () => this.removals.delete(removing);
      removing.then(forget, forget);
    }
    return state.removing;
  }

  private async tearDown(state: ServerState, options: { keepIndex?: boolean }): Promise<void> {
    state.removed = true;
    this.states.delete(stateKey(state.config.id, state.sessionId));
    await state.client.close();
    // The process is gone (close waits for it): what was set up around it can go too.
    await state.release?.();
    if (!options.keepIndex) this.options.index.removeNamespace(state.namespace);
  }

  /** Marks kinds stale and re-reads them; bursts within one tick coalesce into one pass. */
  private refresh(state: ServerState, kinds: readonly McpListKind[]): Promise<void> {
    for (const kind of kinds) state.dirty.add(kind);
    if (!state.refreshing) {
      state.refreshing = this.track(this.drain(state)).finally(() => {
        state.refreshing = undefined;
      });
    }
    return state.refreshing;
  }

  private async drain(state: ServerState): Promise<void> {
    await Promise.resolve();
    while (state.dirty.size > 0 && !state.removed && !this.closed) {
      const kinds = new Set(state.dirty);
      state.dirty.clear();
      try {
        await this.reload(state, kinds);
      } catch (error) {
        // Never an unhandled rejection on a server's behalf: report and carry on.
        this.emit({ type: 'catalog-error', serverId: state.config.id, sessionId: state.sessionId, error: asError(error) });
      }
    }
  }

  private async reload(state: ServerState, kinds: ReadonlySet<McpListKind>): Promise<void> {
    const { config, sessionId } = state;
    const started = performance.now();
    const documents = await loadServerCatalog(state, kinds, { validator: this.validator, emit: (event) => this.emit(event) });
    if (state.removed || this.closed) return;
    try {
      const report = await this.options.index.sync(state.namespace, documents);
      const counts = { tools: state.tools.size, resources: state.resources.length + state.templates.length, prompts: state.prompts.size };
      this.emit({ type: 'catalog-indexed', serverId: config.id, sessionId, report, counts, durationMs: performance.now() - started });
    } catch (error) {
      this.emit({ type: 'catalog-error', serverId: config.id, sessionId, error: asError(error) });
    }
  }

  private async search(query: string, kinds: readonly McpDocumentKind[], options: McpScope & { limit?: number }): Promise<DiscoveryHit[]> {
    const limit = options.limit ?? 8;
    const scoped = this.scopeStates(options);
    const namespaces = [...scoped.map((state) => state.namespace), LOCAL_NAMESPACE];
    // A little headroom: a hit whose item vanished since the last sync is skipped, not returned.
    const request = { kinds, namespaces, limit: limit + 4 };
    let hits: SearchHit[];
    try {
      hits = await this.options.index.search(query, request);
    } catch (error) {
      // A failing embedder must not blind discovery: keyword search still works without it.
      hits = await this.options.index.search(query, { ...request, mode: 'bm25' }).catch(() => {
        throw error;
      });
    }
    const locals = { tools: this.localTools, resources: this.localResources, prompts: this.localPrompts };
    return hits.flatMap((hit) => resolveDiscoveryHit(hit, scoped, locals)).slice(0, limit);
  }

  private findTool(name: string, scope: McpScope): AnyTool | undefined {
    // A tool name is one server's in a scope: a session's server shadows a global one named alike.
    for (const state of this.scopeStates(scope)) {
      const tool = state.tools.get(name);
      if (tool) return tool;
    }
    return this.localTools.get(name);
  }

  private async serverForUri(uri: string, scope: McpScope): Promise<ServerState> {
    const states = this.scopeStates(scope);
    const exact = states.find((state) => state.resources.some((resource) => resource.uri === uri));
    if (exact) return exact;
    const linked = states.find((state) => state.linkedUris.has(uri));
    if (linked) return linked;
    const matches = await templateMatcher();
    const templated = states.find((state) => state.templates.some((template) => matches(template.uriTemplate, uri)));
    if (templated) return templated;
    throw new McpClientError({ code: 'not_found', serverId: '', message: `no MCP server offers the resource ${uri}` });
  }

  /**
   * The servers a scope sees: the global ones and the session's own, where a session's server
   * named like a global one (the same tool prefix: an editor's `github` beside the config's) is
   * the one that session uses; the global one stays for every other session.
   */
  private scopeStates(scope: McpScope): ServerState[] {
    const all = [...this.states.values()];
    if (scope.sessionId === undefined) return all.filter((state) => state.sessionId === undefined);
    const own = new Set(all.flatMap((state) => (state.sessionId === scope.sessionId ? [mcpToolPrefix(state.config.id)] : [])));
    return all.filter((state) => state.sessionId === scope.sessionId || (state.sessionId === undefined && !own.has(mcpToolPrefix(state.config.id))));
  }

  private async idleOf(state: ServerState): Promise<void> {
    while (state.refreshing) await state.refreshing;
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.pending.add(promise);
    const forget = () => this.pending.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  private emit(event: McpRegistryEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's bug must not break the registry.
      }
    }
  }
}
