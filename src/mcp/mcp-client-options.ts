import type { SkippedCatalogItem } from './list-page-schema.js';
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  LoggingLevel,
  ServerCapabilities,
  Tool as McpToolDefinition,
} from '@modelcontextprotocol/client';
import type { McpAuthHooks } from './create-mcp-transport.js';
import type { SpawnStdioServer } from './spawned-stdio-transport.js';
import type { McpClientError } from './mcp-client-error.js';

export type { McpToolDefinition };

export type McpServerStatus = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'failed' | 'closed';
export type McpListKind = 'tools' | 'resources' | 'prompts';

export interface McpLogEntry {
  serverId: string;
  /** The server's log level, or `stderr` for a line a stdio server wrote to stderr. */
  level: LoggingLevel | 'stderr';
  logger?: string;
  data: unknown;
}

export interface McpRequestInfo {
  serverId: string;
  method: string;
  params?: unknown;
}

export interface McpResponseInfo extends McpRequestInfo {
  durationMs: number;
  error?: McpClientError;
}

export interface McpPageInfo {
  serverId: string;
  method: string;
  /** 1-based page number. */
  page: number;
  items: number;
  nextCursor?: string;
}

export interface McpServerIdentity {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
  capabilities: ServerCapabilities;
}

export interface McpCallContext {
  serverId: string;
  signal: AbortSignal;
}

export interface McpReconnectOptions {
  /** First delay after a drop or failed attempt (default 250 ms); doubles per attempt. */
  initialDelayMs?: number;
  /** The cap of the delay (default 30 s). */
  maxDelayMs?: number;
  /** Attempts in a row before the server is marked `failed` (default 8); a later call tries once more. */
  maxAttempts?: number;
}

export interface McpClientOptions extends McpAuthHooks {
  clientInfo?: { name: string; version: string };
  /** Directories offered as roots (`roots/list`), e.g. the session cwd. */
  roots?: () => readonly string[];
  /** Answers `sampling/createMessage`; without it the client does not advertise sampling. */
  onSampling?(request: CreateMessageRequestParams, context: McpCallContext): Promise<CreateMessageResult>;
  /** Answers `elicitation/create`; without it the client does not advertise elicitation. */
  onElicitation?(request: ElicitRequestParams, context: McpCallContext): Promise<ElicitResult>;
  onRequest?(info: McpRequestInfo): void;
  onResponse?(info: McpResponseInfo): void;
  onLog?(entry: McpLogEntry): void;
  onPaginate?(info: McpPageInfo): void;
  /** A listed item was left out of the catalog (too deeply nested, or not valid MCP); the rest of the list stands. */
  onSkippedItem?(item: SkippedCatalogItem): void;
  /** The server's catalog changed (`list_changed`, or a reconnect): re-read that kind. */
  onListChanged?(kind: McpListKind): void;
  onResourceUpdated?(uri: string): void;
  onStatus?(status: McpServerStatus, error?: McpClientError): void;
  /** Checks the server's config before each attempt; an error returned fails the attempt (a `permanent` one is not retried for long). */
  preflight?(): McpClientError | undefined;
  reconnect?: McpReconnectOptions;
  /** Pages per list before giving up on a server whose cursor never ends (default 100). */
  maxPages?: number;
  /**
   * Bound of the handshake, and of how long a request waits for a (re)connect; default the larger
   * of the server's `timeoutMs` and 15 s, because starting a server (`npx …`) is slower than a call.
   */
  connectTimeoutMs?: number;
  /**
   * Replace `${NAME}` in the config from the agent's environment (`expand-server-variables.ts`).
   * For the operator's config only: a server an ACP client sends could name any secret of the
   * agent's environment and send it to itself.
   */
  expandVariables?: boolean;
  /** Starts stdio servers elsewhere (create-mcp-transport.ts); default: as children of this process. */
  spawnStdio?: SpawnStdioServer;
}

export interface McpRequestOptions {
  signal?: AbortSignal;
  /** Overrides the server's `timeoutMs` for this request. */
  timeoutMs?: number;
}

/** A server's `notifications/progress` for a request in flight. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}
