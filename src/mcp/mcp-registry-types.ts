import type { McpListMethod } from './list-all-pages.js';
import type { Runtime } from '../contracts/runtime.js';
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
} from '@modelcontextprotocol/client';
import type { AgentOutput } from '../contracts/agent-output.js';
import type { McpServerConfig } from '../config/schema.js';
import type { SearchIndex, SyncReport } from '../retrieval/search-index.js';
import type { AnyTool } from '../contracts/tool.js';
import type { McpClientError } from './mcp-client-error.js';
import type { McpCallContext, McpClientOptions, McpServerIdentity, McpServerStatus } from './mcp-client.js';

/** Where a call comes from: a session sees the global servers plus its own. */
export interface McpScope {
  sessionId?: string;
}

export interface McpSessionCallContext extends McpCallContext {
  /** The server's session, or else the session of the tool call in flight on that server. */
  sessionId?: string;
  /** The tool call in flight on that server when the request came, if any. */
  toolCallId?: string;
  /** Sends an event into that tool call's turn (live, while the call waits): how to ask the user. */
  emit?(event: AgentOutput): void;
  /** The tool call's runtime, when it can put a structured question to the user itself. */
  elicit?: Runtime['elicit'];
  /** The config of the server that sent the request (its sampling rule and limit). */
  server?: McpServerConfig;
}

/**
 * Answers a server's `sampling/createMessage`. `maxTokensCap`, when set, is the most it will let
 * a request spend, whatever the request asks: the permission question names that bound.
 */
export interface McpSampler {
  (request: CreateMessageRequestParams, context: McpSessionCallContext): Promise<CreateMessageResult>;
  readonly maxTokensCap?: number;
}

export interface McpRegistryOptions
  extends Pick<
    McpClientOptions,
    'clientInfo' | 'onAuth' | 'onAuthRefresh' | 'oauthProvider' | 'onRequest' | 'onResponse' | 'onLog' | 'onPaginate' | 'reconnect' | 'maxPages' | 'connectTimeoutMs' | 'spawnStdio'
  > {
  /** The one hybrid index (the registry writes one namespace per server). */
  index: SearchIndex;
  /** Close the index with the registry (when the registry opened it). */
  ownsIndex?: boolean;
  /** Roots offered to global servers (default: the process cwd); session servers get the session cwd. */
  roots?: readonly string[];
  /** Answers a server's sampling request, e.g. with the session's model. */
  onSampling?: McpSampler;
  /** Rewrites a server's config before it connects (the sandbox wraps stdio commands). */
  prepareServer?(config: McpServerConfig, scope: { sessionId?: string; cwd?: string; roots?: readonly string[] }): Promise<PreparedServer> | PreparedServer;
  /** Forwards a server's elicitation to the user (a permission-style question). */
  onElicitation?(request: ElicitRequestParams, context: McpSessionCallContext): Promise<ElicitResult>;
}

/** What `prepareServer` gives: the config to connect with, and what to undo once the server is removed and its process gone. */
export interface PreparedServer {
  config: McpServerConfig;
  release?(): Promise<void>;
}

export interface McpServerInfo {
  id: string;
  sessionId?: string;
  config: McpServerConfig;
  status: McpServerStatus;
  error?: McpClientError;
  identity?: McpServerIdentity;
  tools: number;
  resources: number;
  resourceTemplates: number;
  prompts: number;
}

export type McpRegistryEvent =
  | { type: 'server-status'; serverId: string; sessionId?: string; status: McpServerStatus; error?: McpClientError }
  /** `counts`: what the server offers now; `durationMs`: listing plus indexing (embedding). */
  | {
      type: 'catalog-indexed';
      serverId: string;
      sessionId?: string;
      report: SyncReport;
      counts: { tools: number; resources: number; prompts: number };
      durationMs: number;
    }
  /** A list could not be read or the index rejected the catalog; the previous catalog stays. */
  | { type: 'catalog-error'; serverId: string; sessionId?: string; error: Error }
  /** Two tools of one server normalize to the same `name`; the later one (`tool`) is offered as `offeredAs`. */
  | { type: 'name-collision'; serverId: string; sessionId?: string; name: string; tool: string; offeredAs: string }
  /** A session's server (`serverId`) is used in that session instead of the global one named alike (`shadowed`). */
  | { type: 'server-shadowed'; serverId: string; sessionId?: string; shadowed: string }
  /** A listed item was left out (nested too deep, or not valid MCP); the rest of the catalog is indexed. */
  | { type: 'catalog-item-skipped'; serverId: string; sessionId?: string; method: McpListMethod; name: string; reason: string };

export interface ToolMatch {
  tool: AnyTool;
  score: number;
}

/** A resource registered in-process (not from a server). */
export interface LocalResource extends Resource {
  read(): Promise<ReadResourceResult>;
}

/** A prompt registered in-process (not from a server). */
export interface LocalPrompt extends Prompt {
  get(args: Record<string, string>): Promise<GetPromptResult>;
}

/** A prompt as the registry lists it: `name` is the normalized, unique name. */
export interface ListedPrompt extends Prompt {
  /** The prompt's name on its server. */
  mcpName: string;
  serverId?: string;
}

export interface ListedResource extends Resource {
  serverId?: string;
}

export interface ListedResourceTemplate extends ResourceTemplateType {
  serverId?: string;
}

export type DiscoveryHit =
  | { kind: 'tool'; score: number; serverId?: string; tool: AnyTool }
  | { kind: 'resource'; score: number; serverId?: string; resource: ListedResource }
  | { kind: 'resource-template'; score: number; serverId?: string; template: ListedResourceTemplate }
  | { kind: 'prompt'; score: number; serverId?: string; prompt: ListedPrompt };
