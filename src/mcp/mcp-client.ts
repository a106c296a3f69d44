import { SdkHttpError, type Client } from '@modelcontextprotocol/client';
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  RequestOptions,
  Resource,
  ResourceTemplateType,
} from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../config/schema.js';
import { buildSdkClient } from './build-sdk-client.js';
import { createMcpTransport } from './create-mcp-transport.js';
import { expandServerVariables } from './expand-server-variables.js';
import { McpClientError } from './mcp-client-error.js';
import { commandLineTooLong } from './command-line-limits.js';
import { timeoutMessage, toMcpClientError } from './to-mcp-client-error.js';
import { NO_SDK_TIMEOUT, ToolCallDeadline } from './tool-call-deadline.js';
import { listAllPages, type ListResult, type McpListMethod } from './list-all-pages.js';
import { listPageSchema } from './list-page-schema.js';
import { ReconnectBackoff } from './reconnect-backoff.js';
import type {
  McpClientOptions,
  McpListKind,
  McpProgress,
  McpRequestOptions,
  McpServerIdentity,
  McpServerStatus,
  McpToolDefinition,
} from './mcp-client-options.js';

export type * from './mcp-client-options.js';

const LIST_CHANGED_DEBOUNCE_MS = 50;
/** Attempts in all for a server that fails for a reason no retry fixes (bad config, refused credentials). */
const PERMANENT_ATTEMPTS = 3;

/**
 * One MCP server connection on `@modelcontextprotocol/client`: builds the transport from the
 * config, keeps the connection alive (capped exponential backoff after a crash or a failed
 * attempt), paginates every list, and turns every failure into an `McpClientError` so a dead,
 * hanging or slow server never takes the process down.
 */
export class McpClient {
  readonly config: McpServerConfig;
  private readonly options: McpClientOptions;
  private client: Client | undefined;
  /** The client of the connect attempt in flight, so close() can cut a slow handshake short. */
  private pendingClient: Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly backoff: ReconnectBackoff;
  private everConnected = false;
  private closed = false;
  private currentStatus: McpServerStatus = 'idle';
  private error: McpClientError | undefined;
  /** Failed attempts in a row that no retry can fix (command not found, credentials refused). */
  private permanentFailures = 0;
  /** The last lines the server wrote to stderr during the attempt in flight: why it would not start. */
  private stderrTail: string[] = [];
  private readonly statusWaiters = new Set<() => void>();
  private readonly subscriptions = new Set<string>();
  private readonly listChangedTimers = new Map<McpListKind, NodeJS.Timeout>();
  /** Requests of the server (sampling, elicitation) still waiting on their answer: a tool call's deadline waits for them. */
  private serverRequestsOpen = 0;
  /** Woken when the last list_changed waiting out its debounce has been passed on. */
  private readonly listChangedWaiters = new Set<() => void>();

  constructor(config: McpServerConfig, options: McpClientOptions = {}) {
    this.config = config;
    this.options = options;
    this.backoff = new ReconnectBackoff(options.reconnect);
  }

  get id(): string {
    return this.config.id;
  }

  get status(): McpServerStatus {
    return this.currentStatus;
  }

  /** The latest failure (connect or connection drop), cleared on a successful connect. */
  get lastError(): McpClientError | undefined {
    return this.error;
  }

  /** Name, version, instructions and capabilities the server announced; undefined until connected. */
  identity(): McpServerIdentity | undefined {
    const client = this.client;
    const version = client?.getServerVersion();
    if (!client || !version) return undefined;
    return {
      name: version.name,
      version: version.version,
      title: version.title,
      instructions: client.getInstructions(),
      capabilities: client.getServerCapabilities() ?? {},
    };
  }

  /**
   * Connects (or joins the attempt in progress). Rejects with an `McpClientError` when the
   * attempt fails; a retry is then already scheduled with backoff.
   */
  connect(): Promise<void> {
    if (this.closed) return Promise.reject(this.notConnected('the client was closed'));
    if (this.client) return Promise.resolve();
    if (!this.connecting) {
      this.backoff.cancel();
      this.connecting = this.attempt().finally(() => {
        this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  /**
   * Resolves once no list_changed is waiting out its debounce: every change the server announced
   * so far has reached `onListChanged` (which starts the re-read).
   */
  listChangesPassedOn(): Promise<void> {
    if (this.listChangedTimers.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.listChangedWaiters.add(resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.backoff.cancel();
    for (const timer of this.listChangedTimers.values()) clearTimeout(timer);
    this.listChangedTimers.clear();
    this.wakeListChangedWaiters();
    const client = this.client;
    this.client = undefined;
    this.setStatus('closed');
    await Promise.all([client?.close(), this.pendingClient?.close()].map((closing) => closing?.catch(() => undefined)));
  }

  async listTools(options?: McpRequestOptions): Promise<McpToolDefinition[]> {
    return this.listAll('tools/list', 'tools', (result) => result.tools, options);
  }

  async listResources(options?: McpRequestOptions): Promise<Resource[]> {
    return this.listAll('resources/list', 'resources', (result) => result.resources, options);
  }

  async listResourceTemplates(options?: McpRequestOptions): Promise<ResourceTemplateType[]> {
    return this.listAll('resources/templates/list', 'resources', (result) => result.resourceTemplates, options);
  }

  async listPrompts(options?: McpRequestOptions): Promise<Prompt[]> {
    return this.listAll('prompts/list', 'prompts', (result) => result.prompts, options);
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: McpRequestOptions & { definition?: McpToolDefinition; onProgress?(progress: McpProgress): void } = {},
  ): Promise<CallToolResult> {
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    return this.run('tools/call', { name, arguments: args }, options, async (client, requestOptions) => {
      // Held while the server waits on the user; each progress report restarts it (the user can still cancel).
      const deadline = new ToolCallDeadline(
        timeoutMs,
        () => this.serverRequestsOpen > 0,
        () => this.options.onLog?.({ serverId: this.id, level: 'debug', logger: 'timeout', data: `tools/call ${name} waits on an answer from the user; its ${timeoutMs} ms timeout waits too` }),
      );
      const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
      deadline.start();
      try {
        return await client.callTool(
          { name, arguments: args },
          {
            ...requestOptions,
            signal,
            timeout: NO_SDK_TIMEOUT,
            onprogress: (update: McpProgress) => {
              deadline.restart();
              options.onProgress?.(update);
            },
            toolDefinition: options.definition,
          },
        );
      } catch (error) {
        if (deadline.expired && !options.signal?.aborted) {
          throw new McpClientError({ code: 'timeout', serverId: this.id, message: timeoutMessage(this.id, 'tools/call', timeoutMs), cause: error });
        }
        throw error;
      } finally {
        deadline.stop();
      }
    });
  }

  async readResource(uri: string, options?: McpRequestOptions): Promise<ReadResourceResult> {
    return this.run('resources/read', { uri }, options, (client, requestOptions) =>
      client.readResource({ uri }, { ...requestOptions, cacheMode: 'bypass' }),
    );
  }

  async getPrompt(name: string, args: Record<string, string> = {}, options?: McpRequestOptions): Promise<GetPromptResult> {
    return this.run('prompts/get', { name, arguments: args }, options, (client, requestOptions) =>
      client.getPrompt({ name, arguments: args }, requestOptions),
    );
  }

  /** Subscribes to updates of one resource; kept across reconnects. */
  async subscribeResource(uri: string, options?: McpRequestOptions): Promise<void> {
    await this.run('resources/subscribe', { uri }, options, (client, requestOptions) =>
      client.subscribeResource({ uri }, requestOptions),
    );
    this.subscriptions.add(uri);
  }

  async unsubscribeResource(uri: string, options?: McpRequestOptions): Promise<void> {
    this.subscriptions.delete(uri);
    if (!this.client) return;
    await this.run('resources/unsubscribe', { uri }, options, (client, requestOptions) =>
      client.unsubscribeResource({ uri }, requestOptions),
    );
  }

  async ping(options?: McpRequestOptions): Promise<void> {
    await this.run('ping', undefined, options, (client, requestOptions) => client.ping(requestOptions));
  }

  /** Tells the server the roots changed (e.g. the session's cwd moved). */
  async notifyRootsChanged(): Promise<void> {
    await this.client?.sendRootsListChanged().catch(() => undefined);
  }

  private async attempt(): Promise<void> {
    this.setStatus(this.everConnected ? 'reconnecting' : 'connecting');
    const client = buildSdkClient(this.id, this.countingServerRequests(), (kind) => this.listChanged(kind));
    this.pendingClient = client;
    let startFailure: McpClientError | undefined;
    this.stderrTail = [];
    try {
      const misconfigured = this.options.preflight?.();
      if (misconfigured) throw misconfigured;
      // `${NAME}` in args, env, url, headers and token, from the agent's environment at each connect (config servers only).
      const transport = createMcpTransport(this.options.expandVariables ? expandServerVariables(this.config) : this.config, {
        onAuth: this.options.onAuth,
        onAuthRefresh: this.options.onAuthRefresh,
        oauthProvider: this.options.oauthProvider,
        spawnStdio: this.options.spawnStdio,
        onStderr: (line) => {
          this.stderrTail = [...this.stderrTail.slice(-2), line.slice(0, 300)];
          this.options.onLog?.({ serverId: this.id, level: 'stderr', data: line });
        },
      });
      client.onclose = () => this.handleClose(client);
      // Transport errors are reported out of band and are not fatal by themselves; a real drop
      // arrives through onclose.
      client.onerror = (error) => {
        // A program that could not start says why (spawned-stdio-transport.ts); the handshake would only see the close.
        if (McpClientError.isInstance(error) && error.code === 'connect_failed') startFailure = error;
        this.options.onLog?.({ serverId: this.id, level: 'debug', logger: 'transport', data: error.message });
      };
      await client.connect(transport, { timeout: this.connectTimeoutMs });
    } catch (cause) {
      this.pendingClient = undefined;
      await client.close().catch(() => undefined);
      // A wrapper (the sandbox) that started but could not exec the server says so on stderr.
      const tooLong = this.stderrTail.some((line) => line.includes('Argument list too long'));
      const mapped = tooLong
        ? new McpClientError({ code: 'connect_failed', serverId: this.id, message: commandLineTooLong(this.id), cause, permanent: true })
        : (startFailure ?? toMcpClientError(cause, { serverId: this.id, fallback: 'connect_failed', action: 'connect', timeoutMs: this.connectTimeoutMs }));
      // Whatever broke the handshake (exit, timeout, garbage), the caller's question is "did it connect".
      const said = this.stderrTail.length > 0 ? `; its stderr: ${this.stderrTail.join(' | ')}` : '';
      const error =
        mapped.code === 'auth_failed' || mapped.permanent || (mapped.code === 'connect_failed' && said === '')
          ? mapped
          : new McpClientError({ code: 'connect_failed', serverId: this.id, message: `${mapped.message}${said}`, cause: mapped });
      this.error = error;
      if (this.closed) throw error;
      const willRetry = this.scheduleReconnect(error);
      this.setStatus(willRetry ? 'reconnecting' : 'failed', error);
      throw error;
    }
    this.pendingClient = undefined;
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw this.notConnected('the client was closed while connecting');
    }
    this.client = client;
    this.backoff.reset();
    this.permanentFailures = 0;
    this.error = undefined;
    const reconnected = this.everConnected;
    this.everConnected = true;
    this.setStatus('connected');
    if (reconnected) {
      // The server restarted: its catalog may differ, and it forgot our subscriptions.
      for (const kind of ['tools', 'resources', 'prompts'] as const) this.options.onListChanged?.(kind);
      for (const uri of this.subscriptions) void client.subscribeResource({ uri }).catch(() => undefined);
    }
  }

  /** The options, with the server's questions (sampling, elicitation) counted while they wait on their answer. */
  private countingServerRequests(): McpClientOptions {
    const { onSampling, onElicitation } = this.options;
    const counted = async <T>(answer: () => Promise<T>): Promise<T> => {
      this.serverRequestsOpen++;
      try {
        return await answer();
      } finally {
        this.serverRequestsOpen--;
      }
    };
    return {
      ...this.options,
      ...(onSampling ? { onSampling: (request, context) => counted(() => onSampling(request, context)) } : {}),
      ...(onElicitation ? { onElicitation: (request, context) => counted(() => onElicitation(request, context)) } : {}),
    };
  }

    /** Servers often send several list_changed in a burst (one per added tool): re-read once. */
  private listChanged(kind: McpListKind): void {
    clearTimeout(this.listChangedTimers.get(kind));
    const timer = setTimeout(() => {
      this.listChangedTimers.delete(kind);
      if (!this.closed) this.options.onListChanged?.(kind);
      if (this.listChangedTimers.size === 0) this.wakeListChangedWaiters();
    }, LIST_CHANGED_DEBOUNCE_MS);
    timer.unref();
    this.listChangedTimers.set(kind, timer);
  }

  private wakeListChangedWaiters(): void {
    for (const wake of this.listChangedWaiters) wake();
    this.listChangedWaiters.clear();
  }

  private handleClose(client: Client): void {
    if (client !== this.client) return;
    this.client = undefined;
    if (this.closed) return;
    this.error = new McpClientError({ code: 'connection_closed', serverId: this.id, message: `server "${this.id}" disconnected` });
    const willRetry = this.scheduleReconnect();
    this.setStatus(willRetry ? 'reconnecting' : 'failed', this.error);
  }

  /**
   * Returns whether a retry was scheduled (false once the attempts are spent, or closed). A
   * failure no retry can fix (bad config, refused credentials) gets a short bounded backoff
   * (`PERMANENT_ATTEMPTS` in all: a config being edited may still be picked up) and then stops.
   */
  private scheduleReconnect(error?: McpClientError): boolean {
    if (this.closed) return false;
    if (error && !error.isRetryable && ++this.permanentFailures >= PERMANENT_ATTEMPTS) return false;
    return this.backoff.schedule(() => void this.connect().catch(() => undefined));
  }

  /** Failed for a reason no retry fixes: calls fail at once instead of starting it again. */
  private get failedForGood(): boolean {
    return this.currentStatus === 'failed' && this.error !== undefined && !this.error.isRetryable;
  }

  private setStatus(status: McpServerStatus, error?: McpClientError): void {
    this.currentStatus = status;
    for (const wake of this.statusWaiters) wake();
    this.options.onStatus?.(status, error);
  }

  /**
   * The live SDK client: waits (at most `timeoutMs`, the connect bound) while a connect or a scheduled
   * reconnect is under way; a server marked `failed` gets one fresh attempt.
   */
  private async ready(timeoutMs: number, signal?: AbortSignal): Promise<Client> {
    if (this.client) return this.client;
    if (this.closed) throw this.notConnected('the client was closed');
    if (this.failedForGood) throw this.notConnected(`server "${this.id}" is not connected: ${this.error?.message ?? 'unknown error'}`);
    if (!this.connecting && !this.backoff.pending) this.connect().catch(() => undefined);
    const deadline = Date.now() + timeoutMs;
    while (!this.client) {
      if (this.closed) throw this.notConnected('the client was closed');
      if (signal?.aborted) throw new McpClientError({ code: 'aborted', serverId: this.id, message: `request to "${this.id}" aborted` });
      if (this.currentStatus === 'failed' && !this.backoff.pending) {
        if (this.connecting) {
          // The attempt has failed for good; let it settle before giving up.
          await this.connecting.catch(() => undefined);
          continue;
        }
        throw this.notConnected(`server "${this.id}" is not connected: ${this.error?.message ?? 'unknown error'}`);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new McpClientError({
          code: 'timeout',
          serverId: this.id,
          message: `server "${this.id}" did not (re)connect within ${timeoutMs} ms`,
          cause: this.error,
        });
      }
      await this.waitForStatusChange(remaining, signal);
    }
    return this.client;
  }

  private waitForStatusChange(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.statusWaiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.statusWaiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private async run<T>(
    method: string,
    params: unknown,
    options: McpRequestOptions | undefined,
    send: (client: Client, requestOptions: RequestOptions) => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const timeoutMs = options?.timeoutMs ?? this.config.timeoutMs;
    this.options.onRequest?.({ serverId: this.id, method, params });
    try {
      const client = await this.ready(this.connectTimeoutMs, options?.signal);
      const result = await send(client, { signal: options?.signal, timeout: timeoutMs }).catch(async (cause: unknown) => {
        // The server restarted and forgot our session: a 404 to a request that carried it (the MCP spec: initialize
        // anew). The request was refused, not run, so it is sent again on a new session.
        if (!this.sessionGone(cause) || this.client !== client) throw cause;
        this.dropConnection();
        return send(await this.ready(this.connectTimeoutMs, options?.signal), { signal: options?.signal, timeout: timeoutMs });
      });
      this.options.onResponse?.({ serverId: this.id, method, params, durationMs: performance.now() - started });
      return result;
    } catch (cause) {
      const error = toMcpClientError(cause, { serverId: this.id, fallback: 'server_error', action: method, signal: options?.signal, timeoutMs });
      this.options.onResponse?.({ serverId: this.id, method, params, durationMs: performance.now() - started, error });
      // HTTP has no channel that closes when the server dies: a refused request is the signal.
      if (error.code === 'connection_closed' && this.client && this.config.transport !== 'stdio') this.dropConnection();
      throw error;
    }
  }

  private sessionGone(cause: unknown): boolean {
    return this.config.transport === 'http' && SdkHttpError.isInstance(cause) && cause.status === 404;
  }

  private dropConnection(): void {
    const client = this.client;
    if (!client) return;
    this.handleClose(client);
    void client.close().catch(() => undefined);
  }

  private async listAll<M extends McpListMethod, Item>(
    method: M,
    capability: McpListKind,
    pick: (result: ListResult<M>) => Item[],
    options?: McpRequestOptions,
  ): Promise<Item[]> {
    const capabilities = (await this.ready(this.connectTimeoutMs, options?.signal)).getServerCapabilities();
    if (!capabilities?.[capability]) return [];
    return listAllPages({
      serverId: this.id,
      method,
      maxPages: this.options.maxPages ?? 100,
      pick,
      onPaginate: this.options.onPaginate,
      fetchPage: (params) =>
        this.run(
          method,
          params,
          options,
          // Each item checked on its own (see list-page-schema.ts): one malformed tool never costs the whole catalog.
          (client, requestOptions) =>
            client.request({ method, params }, listPageSchema(method, (item) => this.options.onSkippedItem?.(item)), requestOptions) as Promise<ListResult<M>>,
        ),
    });
  }

  private get connectTimeoutMs(): number {
    return this.options.connectTimeoutMs ?? Math.max(this.config.timeoutMs, 15_000);
  }

  private notConnected(message: string): McpClientError {
    return new McpClientError({ code: 'not_connected', serverId: this.id, message, cause: this.error });
  }
}
