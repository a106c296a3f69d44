import type { AgentOutput, StopReason, ToolCallLocation } from '../contracts/agent-output.js';
import type { SessionInfo } from './agent.js';
import type { Runtime } from '../contracts/runtime.js';
import type { AnyTool, ToolResult, ToolRisk, ToolSource } from '../contracts/tool.js';
import type { ToolCallDecision, ToolCallHookEvent } from '../contracts/agent-hooks.js';
import type { CommandOutcome, ExtensionCommand } from './extension-command.js';

export type { CommandOutcome, ExtensionCommand };

/** What an extension sees of a running turn. */
export interface TurnContext {
  sessionId: string;
  /** Set for a sub-agent's turn: the session it works for (whose own MCP servers it uses too). */
  parentSessionId?: string;
  cwd: string;
  /** Extra workspace roots of the session (ACP `additionalDirectories`). */
  additionalDirectories?: readonly string[];
  /** The latest user message as plain text: the turn's intent, for discovery. */
  intent: string;
  signal: AbortSignal;
  runtime: Runtime;
  /** Sends an event into the turn's stream (e.g. a plan update, a notice). */
  emit(event: AgentOutput): void;
  /** The turn so far as plain text (user, assistant, tool calls); set by the core for turn hooks. */
  transcript?(): string;
}

export interface ToolCallSummary {
  toolCallId: string;
  toolName: string;
  risk: ToolRisk;
  source: ToolSource;
  args: unknown;
  result: ToolResult;
  locations: ToolCallLocation[];
}

/**
 * The one way modules plug into the core without the core knowing them: the MCP
 * registry, skills, rules, memory, plans, the sandbox and the config's `hooks`
 * (config-hooks-extension.ts) each provide one. Every hook is optional; a hook that
 * throws is reported as a notice and skipped, never ends the turn.
 */
export interface AgentExtension {
  name: string;
  /** What the extension adds to the agent's capabilities (an MCP extension: the MCP transports it connects). */
  capabilities?: { mcp?: { http?: boolean; sse?: boolean } };
  /** Slash commands the extension answers itself, the same for every session; announced with the agent's own. */
  commands?: readonly ExtensionCommand[];
  /**
   * The command `/name` of a session when this extension runs it (an MCP server's prompt),
   * beside the static `commands`. Asked for a `/name` no static command has; `undefined` leaves it
   * to the next extension, and at last to the model as typed.
   */
  command?(name: string, session: { sessionId: string; cwd: string }): Promise<ExtensionCommand | undefined> | ExtensionCommand | undefined;
  /** Tools to offer for this turn (MCP tools for the intent, `read_skill`, `plan`, …). */
  tools?(context: TurnContext): Promise<AnyTool[]> | AnyTool[];
  /** Text appended to the system prompt for this turn (rules, skill catalog, episodes). */
  systemPrompt?(context: TurnContext): Promise<string | undefined> | string | undefined;
  /**
   * Decides a tool call before policy and the user see it: `{ deny }` refuses it (the model
   * reads the reason), `{ args }` replaces its arguments (validated again), nothing lets it
   * through. Extensions are asked in order; the first decision wins. `call.args` is a copy.
   */
  onToolCall?(context: TurnContext, call: ToolCallHookEvent): Promise<ToolCallDecision> | ToolCallDecision;
  /** Observes each finished tool call (rules load AGENTS.md files near touched paths). */
  onToolResult?(context: TurnContext, call: ToolCallSummary): Promise<void> | void;
  onTurnEnd?(context: TurnContext, stopReason: StopReason): Promise<void> | void;
  /**
   * A session was created or loaded (connect its MCP servers, announce slash commands). A
   * `commands` event emitted (now or later) is this extension's part of the session's slash
   * commands: the core merges every extension's with the agent's own into the one list a client keeps.
   */
  onSessionStart?(session: SessionInfo, emit: (event: AgentOutput) => void): Promise<void> | void;
  /**
   * A live session's client named other MCP servers (`session/load` or `resume` of a session open
   * in this process): `session.mcpServers` is the new list. Runs between turns, never during one.
   */
  onSessionServersChange?(session: SessionInfo, emit: (event: AgentOutput) => void): Promise<void> | void;
  onSessionClose?(sessionId: string): Promise<void> | void;
  /** A session was forked from `from`: copy what the extension keeps per session (a plan). Runs before `onSessionStart` of the fork. */
  onSessionFork?(from: SessionInfo, to: SessionInfo): Promise<void> | void;
  /** A session was deleted: remove what the extension kept for it (a plan file), as the store removed its history. */
  onSessionDelete?(session: SessionInfo): Promise<void> | void;
  close?(): Promise<void> | void;
}
