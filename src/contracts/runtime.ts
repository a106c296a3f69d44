import type { TextWindow, TextWindowOptions } from './text-window.js';

/**
 * What tools touch instead of `fs` and `child_process`. Local by default
 * (see local-runtime.ts); the ACP adapter supplies one backed by the client's
 * `fs/*` and `terminal/*` methods; the sandbox supplies one that isolates commands.
 */
export interface ExecOptions {
  /** Working directory; defaults to the runtime's cwd. */
  cwd?: string;
  /** Kill the command after this many milliseconds. */
  timeoutMs?: number;
  /** Aborting kills the command and its whole process group. */
  signal?: AbortSignal;
  /** Keep at most this many bytes of output (the tail is kept); `truncated` reports a cut. */
  maxOutputBytes?: number;
  /** Variables set for this command on purpose (kept whatever their name). */
  env?: Record<string, string>;
  /**
   * Secret-looking variables of the agent's environment the command may inherit
   * (config `tools.env.passthrough`); every other one is scrubbed (see secret-env.ts).
   */
  passEnv?: readonly string[];
  /** Called as soon as a client terminal exists, so the tool call can embed it while it runs. */
  onTerminal?: (terminalId: string) => void;
  /**
   * Output as it arrives (stdout and stderr interleaved, raw bytes), before any truncation; for
   * runtimes that run the process themselves (local, sandbox). A client terminal shows it instead.
   */
  onOutput?: (chunk: Uint8Array) => void;
  /**
   * The command line isolates itself already (a sandbox wrapped it): the runtime
   * adds no protected layer around it (bubblewrap does not nest in a pid namespace).
   */
  isolated?: boolean;
}

export interface ExecResult {
  /** stdout and stderr interleaved, as a terminal would show them. */
  output: string;
  exitCode: number | null;
  /** The signal that ended the process, if one did. */
  signal: string | null;
  truncated: boolean;
  timedOut: boolean;
  /** Set when the command ran in a client terminal, so the client can embed it. */
  terminalId?: string;
}

export interface Runtime {
  readonly cwd: string;
  /** Reads a whole text file. Paths are absolute (tools resolve them first). The local runtime refuses files over 32 MB (FileTooLargeError). */
  readFile(path: string, options?: { signal?: AbortSignal }): Promise<string>;
  /**
   * A window of a text file's lines (see TextWindow), read without loading the whole file.
   * Optional for custom runtimes: without it `read_file` reads the whole file with `readFile`.
   */
  readTextWindow?(path: string, options: TextWindowOptions): Promise<TextWindow>;
  writeFile(path: string, content: string, options?: { signal?: AbortSignal }): Promise<void>;
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** A short description for logs and capability reports (`local`, `acp-client`, `sandbox`). */
  readonly kind: string;
  /**
   * Asks the user a structured question (a form, or a URL to visit), when the runtime's user
   * interface can (an ACP client that advertises `elicitation`); absent otherwise.
   */
  elicit?(question: ElicitationQuestion, options: { signal?: AbortSignal; toolCallId?: string }): Promise<ElicitationAnswer>;
}

/** A structured question: MCP's and ACP's elicitation share this shape. */
export type ElicitationQuestion =
  | { mode: 'form'; message: string; requestedSchema: Record<string, unknown> }
  | { mode: 'url'; message: string; url: string; elicitationId: string };

export type ElicitationAnswer = { action: 'accept'; content?: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };
