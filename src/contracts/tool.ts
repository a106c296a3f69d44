import type { AgentOutput, ToolCallContent, ToolCallLocation, ToolKind } from '../contracts/agent-output.js';
import type { Runtime } from './runtime.js';

/**
 * The tool contract: what the core runs and every tool module (built-in, MCP, skills, memory)
 * implements. Tools, config and the agent import it from here; `src/tools/tool-result.ts` has
 * the result helpers.
 */
export type ToolRisk = 'read' | 'write' | 'external';
export type ToolSource = 'local' | 'mcp' | 'skill' | 'memory';

/** A JSON Schema object describing a tool's arguments. */
export type JsonSchema = { [key: string]: unknown };

/** What the model sees back from a tool. */
export type ToolResultPart =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string };

export interface ToolResult {
  content: ToolResultPart[];
  isError?: boolean;
  /** What the client shows for the call (diff, terminal); defaults to the text content. */
  display?: ToolCallContent[];
  locations?: ToolCallLocation[];
  /** Machine-readable result (MCP structuredContent), passed through to adapters. */
  structured?: unknown;
}

export interface ToolContext {
  runtime: Runtime;
  signal: AbortSignal;
  sessionId: string;
  toolCallId: string;
  /** Extra roots outside cwd that file tools may touch (config `agent.allowedRoots`). */
  allowedRoots: readonly string[];
  /** Stream progress to the client while the tool runs. */
  onUpdate(update: { title?: string; content?: ToolCallContent[] }): void;
  /** Sends a session event (a plan update, a notice) into the turn's stream. */
  emit(event: AgentOutput): void;
  /** The agent's background commands (bash `background: true`); absent where the host keeps none. */
  background?: BackgroundCommands;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface Tool<Args = unknown> {
  name: string;
  description: string;
  /** JSON Schema of the arguments, as sent to the model. */
  inputSchema: JsonSchema;
  risk: ToolRisk;
  source: ToolSource;
  /** ACP tool kind for display; defaults from risk. */
  kind?: ToolKind;
  /** Checks raw model arguments; a failure goes back to the model as a tool error. */
  validate(args: unknown): ValidationResult<Args>;
  /** A human title for the call ("Read src/index.ts"). */
  title?(args: Args): string;
  locations?(args: Args, cwd: string): ToolCallLocation[];
  /**
   * What the call would change (a diff), shown with its permission question so the user sees
   * what they allow; undefined when there is nothing to show. Reads, never writes.
   */
  preview?(args: Args, context: ToolPreviewContext): Promise<ToolCallContent[] | undefined>;
  execute(args: Args, context: ToolContext): Promise<ToolResult>;
  /**
   * Who provides the tool, as a permission answer remembers it: an MCP server's identity. A rule
   * made from an answer covers the tool only from the same origin, since a name (`mcp__github__…`)
   * is only what a config or an editor calls the server.
   */
  origin?: ToolOrigin;
}

/** The identity of a tool's provider, never holding a secret (no env, headers or URL query). */
export interface ToolOrigin {
  /** A digest of what makes it the same provider (an MCP server: transport and command, args and cwd, or URL). */
  key: string;
  /** Its name where the user gave it (the server id: `github`). */
  name: string;
  /** What it runs, for the user (`npx @modelcontextprotocol/server-github`, `https://mcp.example.com/mcp`). */
  label: string;
}

/** What a preview may use: the runtime (an editor's unsaved buffers included), the roots, the turn's signal. */
export type ToolPreviewContext = Pick<ToolContext, 'runtime' | 'allowedRoots' | 'signal'>;

/** A tool with its argument type erased, as registries hold them. */
export type AnyTool = Tool<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A background command to start (see BackgroundCommands). */
export interface BackgroundStart {
  sessionId: string;
  /** The tool call that started it. */
  toolCallId?: string;
  command: string;
  runtime: Runtime;
  cwd: string;
  passEnv?: readonly string[];
  /** Kill it after this many milliseconds (none by default: it runs until stopped). */
  timeoutMs?: number;
}

/** What the model reads back: output since its last read, and how the command ended (if it did). */
export interface BackgroundSnapshot {
  id: string;
  command: string;
  output: string;
  truncated: boolean;
  running: boolean;
  exitCode: number | null;
  signal: string | null;
}

/**
 * The agent's background commands as a tool sees them (`bash` with `background: true`,
 * `bash_output`, `bash_kill`); src/tools/background-processes.ts implements it.
 */
export interface BackgroundCommands {
  /** Starts a command; its id. Throws BackgroundLimitError when the session has too many. */
  start(options: BackgroundStart): string;
  /** Output since the last read and how the command ended (if it did); undefined for an unknown id. */
  read(sessionId: string, id: string): BackgroundSnapshot | undefined;
  /** Waits up to `ms` for the command to end. */
  settle(id: string, ms: number): Promise<void>;
  /** Stops a command of the session; false when there is no such command. */
  kill(sessionId: string, id: string): Promise<boolean>;
  list(sessionId: string): Array<{ id: string; command: string; running: boolean }>;
}
