
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

/**
 * A window of a text file's lines: what `read_file` shows, read without loading the whole
 * file (see read-text-window.ts for the local disk, text-window-from-text.ts for a client's).
 */
export interface TextWindowOptions {
  /** First line, 1-based. */
  offset: number;
  /** At most this many lines. */
  limit: number;
  /** At most this many bytes of line text in all; a single longer line is kept up to this many bytes. */
  maxBytes: number;
  signal?: AbortSignal;
}

export interface TextWindowLine {
  /** The line without its terminator; cut to `maxBytes` bytes when longer. */
  text: string;
  /** The whole line's length in bytes (with `cut`: how much was read of it). */
  bytes: number;
  /** The line is longer than the window's cap: only its start was read. */
  cut?: true;
}

export interface TextWindow {
  /** The file's first bytes hold a NUL: it is not text, and `lines` is empty. */
  binary: boolean;
  lines: TextWindowLine[];
  /** Lines in the whole file, when the read went to its end. */
  totalLines?: number;
  /** More lines follow the window. */
  more: boolean;
  /** The window ended at the byte cap, before `limit` lines. */
  byteCapped: boolean;
  /** The file's size in bytes, when known. */
  size?: number;
}
