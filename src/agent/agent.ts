import type { ResolvedLanguageModel } from '../model/resolve-model.js';
import type { AgentOutput, ContentPart } from '../contracts/agent-output.js';
import type { Runtime } from '../contracts/runtime.js';
import type { AnyTool } from '../contracts/tool.js';
import type { McpServerConfig } from '../config/schema.js';
import type { SessionStores } from '../storage/session-storage.js';

/** Permission modes a session can be in. */
export type SessionMode = 'default' | 'accept-edits' | 'plan';

export interface SessionInfo {
  sessionId: string;
  cwd: string;
  title: string | null;
  mode: SessionMode;
  createdAt: string;
  updatedAt: string;
  /** MCP servers the client asked for in `session/new`; they belong to this session. */
  mcpServers: McpServerConfig[];
  /** The principal that created it (see `ownedSessions`); absent means the local user. */
  owner?: string;
  /** What the client chose for this session (stored with it); absent values mean the config's defaults. */
  options?: SessionOptions;
}

/** Per-session choices a client can make (ACP session config options). */
export interface SessionOptions {
  /** A name from `agent.models`; the configured `agent.model` when absent. */
  model?: string;
  /** One of the chosen model's `reasoningEfforts`. */
  reasoningEffort?: string;
  /** Extra workspace roots beside the cwd (ACP `additionalDirectories`): file tools, rules and MCP roots include them. */
  additionalDirectories?: string[];
  /**
   * The client's MCP servers as it names them again (ACP `session/load`, `session/resume`): they
   * replace the list of `session/new` and are the session's `SessionInfo.mcpServers` from then on.
   */
  mcpServers?: McpServerConfig[];
}

export interface CreateSessionOptions {
  cwd: string;
  mcpServers?: McpServerConfig[];
  mode?: SessionMode;
  /** Fixed id (tests, sub-agents); generated when absent. */
  sessionId?: string;
  /** Set on sub-agent sessions. */
  parentSessionId?: string;
  /** The principal creating it (a network client's token); the local user when absent. */
  owner?: string;
  /** Stored before the session starts (its extensions see them). */
  options?: SessionOptions;
}

/** A fork's own parts; the rest (history, mode, title, model choices) is the source's. */
export interface ForkSessionOptions {
  cwd: string;
  mcpServers?: McpServerConfig[];
  /** The principal forking it (it owns the fork); the local user when absent. */
  owner?: string;
  /** Over the source's stored options (e.g. the fork's own `additionalDirectories`). */
  options?: SessionOptions;
}

export interface SessionManager {
  create(options: CreateSessionOptions): Promise<SessionInfo>;
  /**
   * A new session with a copy of `sessionId`'s history as stored now (messages, tool results,
   * plan), live and persisted; independent of the source afterwards. Throws `session_busy` while
   * the source has a turn running.
   */
  fork(sessionId: string, options: ForkSessionOptions): Promise<SessionInfo>;
  /** Finds a session, in memory or on disk (`cwd` names the project whose store to look in). */
  get(sessionId: string, cwd?: string): Promise<SessionInfo | undefined>;
  list(options?: { cwd?: string }): Promise<SessionInfo[]>;
  /** Makes a stored session live (its MCP servers reconnected) without reading its history. */
  activate(sessionId: string, cwd?: string): Promise<SessionInfo>;
  /** Every stored event of the session, in order: what `session/load` replays. */
  history(sessionId: string, cwd?: string): Promise<AgentOutput[]>;
  /**
   * What `session/load` replays: the stored history, and, while a turn runs on the session here
   * or in another replica sharing the store (one with a feed: PostgreSQL), the rest of that turn
   * as it is stored, until it ends or `signal` aborts. A session another live replica holds is
   * read without taking it over (a prompt there is still `session_in_use`). Optional: `history` otherwise.
   */
  replay?(sessionId: string, cwd: string | undefined, signal: AbortSignal): Promise<SessionReplay>;
  setMode(sessionId: string, mode: SessionMode): Promise<void>;
  /** Changes the session's options (stored with it); the next model step uses them. */
  setOptions(sessionId: string, options: SessionOptions): Promise<SessionInfo>;
  /**
   * Releases the session's resources (its MCP servers, its lease); the stored history stays.
   * `ifIdle`: only when no turn runs on it and no background command of it runs (a client that
   * went away lets the session go, without cutting short what another face still runs there).
   */
  close(sessionId: string, options?: { ifIdle?: boolean }): Promise<void>;
  delete(sessionId: string): Promise<void>;
}

/** A session's history, and the running turn's later events (in stored batches) when one runs. */
export interface SessionReplay {
  history: AgentOutput[];
  live?: AsyncIterable<AgentOutput[]>;
}

export interface PromptInput {
  sessionId: string;
  prompt: ContentPart[];
  /** The protocol's id for this user message; carried (and stored) on its `user-message` event. */
  messageId?: string;
}

export interface ProcessOptions {
  signal?: AbortSignal;
  /** The runtime tools use for this turn; the local one when absent. */
  runtime?: Runtime;
  /** For a prompt sent while a turn runs: steer it or queue after it (default: config `agent.sendMode`). */
  sendMode?: 'steer' | 'queue';
  /**
   * Binds turns together (an A2A task's): a prompt sent with a key steers only a running turn
   * started with the same key, and otherwise runs as a turn of its own, never joining another
   * caller's turn. Compared by identity; absent: it steers whatever turn runs.
   */
  turnKey?: object;
  /**
   * The model for each step of this turn instead of the session's, asked before every step with
   * the session's options as they are then (so a change of either takes over at the next step);
   * `undefined` from it: the session's model. An adapter's
   * routing of the model (ACP `providers/set`), held by the adapter and never stored with the session.
   */
  stepModel?: (options: SessionOptions | undefined) => Promise<ResolvedLanguageModel | undefined>;
}

export interface AgentCapabilities {
  /** Prompt content the agent accepts beyond text. */
  prompt: { image: boolean; audio: boolean; embeddedContext: boolean };
  loadSession: boolean;
  mcp: { http: boolean; sse: boolean };
  modes: SessionMode[];
}

/** The protocol-agnostic core. Adapters translate between it and a protocol. */
export interface Agent {
  readonly sessions: SessionManager;
  /** Runs one user turn (or steers/queues onto a running one) and yields its events. */
  process(input: PromptInput, options?: ProcessOptions): AsyncIterable<AgentOutput>;
  capabilities(): AgentCapabilities;
  /** Events that happen outside a turn (session start notices, slash commands, MCP server failures). */
  subscribe(listener: (event: AgentOutput) => void): () => void;
  /**
   * Cancels one running tool call alone: it gets a "cancelled by the user" result and the turn
   * goes on. Throws `ToolCallCancelError` when the call is unknown or already final.
   */
  cancelToolCall(sessionId: string, toolCallId: string): void;
  /** The session's background commands that still run, as they were announced (`terminal-start`). */
  backgroundWork(sessionId: string): Array<Extract<AgentOutput, { type: 'terminal-start' }>>;
  /** Tools the session would be offered now (built-ins, MCP, skills, memory), after policy. */
  tools(sessionId: string): Promise<AnyTool[]>;
  start(): Promise<void>;
  /**
   * Stops taking turns (a prompt gets `agent_draining`), lets running turns finish for up to
   * `graceMs` (default 0: cancelled at once), cancels the rest (their replies marked interrupted),
   * then closes sessions (releasing their leases), extensions and the stores it opened.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
  /** Resolves when the agent can serve sessions: its stores open and answer (what `/readyz` asks); rejects once it is stopping. */
  ready?(): Promise<void>;
  /**
   * The session stores the agent uses, opened on first ask: adapters keep their own records
   * beside the sessions in them (A2A tasks, in the database replicas share).
   */
  stores?(): Promise<SessionStores>;
}
