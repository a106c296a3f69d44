import { randomBytes } from 'node:crypto';
import type { AgentOutput } from '../contracts/agent-output.js';
import { OutputBuffer } from './output-buffer.js';
import type { ExecResult } from '../contracts/runtime.js';
import type { BackgroundCommands, BackgroundSnapshot, BackgroundStart } from '../contracts/tool.js';
import { BackgroundLimitError } from './background-limit-error.js';

/** Background commands one session may have running at once. */
export const MAX_BACKGROUND_PER_SESSION = 8;
/** Unread output kept per background command (the tail). */
const UNREAD_MAX_BYTES = 30_000;

export { BackgroundLimitError } from './background-limit-error.js';
export type { BackgroundSnapshot, BackgroundStart } from '../contracts/tool.js';

type TerminalStart = Extract<AgentOutput, { type: 'terminal-start' }>;

interface Entry {
  id: string;
  /** How it was announced: a new subscriber (a resumed ACP v2 session) is told the same. */
  start: TerminalStart;
  sessionId: string;
  command: string;
  unread: OutputBuffer;
  controller: AbortController;
  exit: { exitCode: number | null; signal: string | null } | undefined;
  done: Promise<void>;
}

/**
 * The agent's background commands, per session: started by `bash` with `background: true`, they
 * outlive their tool call; the model reads new output (`bash_output`) and stops them (`bash_kill`).
 * Each is an agent-owned terminal: its start, output and exit are published as `terminal-*`
 * events. Stopped when their session closes or is deleted, and when the agent stops or exits.
 */
export class BackgroundProcesses implements BackgroundCommands {
  readonly #entries = new Map<string, Entry>();
  readonly #publish: (event: AgentOutput) => void;
  readonly #maxPerSession: number;
  #exitHook: (() => void) | undefined;

  constructor(options: { publish(event: AgentOutput): void; maxPerSession?: number }) {
    this.#publish = options.publish;
    this.#maxPerSession = options.maxPerSession ?? MAX_BACKGROUND_PER_SESSION;
  }

  /** Starts a command; resolves with its id once started (not when it ends). */
  start(options: BackgroundStart): string {
    const running = this.#sessionEntries(options.sessionId).filter((entry) => !entry.exit);
    if (running.length >= this.#maxPerSession) throw new BackgroundLimitError(options.sessionId, this.#maxPerSession);
    const id = `bg-${randomBytes(4).toString('hex')}`;
    const { sessionId } = options;
    const controller = new AbortController();
    const start: TerminalStart = {
      type: 'terminal-start',
      sessionId,
      terminalId: id,
      ...(options.toolCallId ? { toolCallId: options.toolCallId } : {}),
      command: options.command,
      cwd: options.cwd,
      background: true,
      cancel: () => controller.abort(),
    };
    const entry: Entry = {
      id,
      start,
      sessionId,
      command: options.command,
      unread: new OutputBuffer({ maxBytes: UNREAD_MAX_BYTES, keep: 'tail' }),
      controller,
      exit: undefined,
      done: Promise.resolve(),
    };
    this.#entries.set(id, entry);
    this.#ensureExitHook();
    this.#publish(start);
    const finish = (result: Pick<ExecResult, 'exitCode' | 'signal'>) => {
      entry.exit = { exitCode: result.exitCode, signal: result.signal };
      this.#publish({ type: 'terminal-exit', sessionId, terminalId: id, ...entry.exit });
    };
    entry.done = options.runtime
      .exec(options.command, {
        cwd: options.cwd,
        signal: controller.signal,
        passEnv: options.passEnv,
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        maxOutputBytes: UNREAD_MAX_BYTES,
        onOutput: (chunk) => {
          const buffer = Buffer.from(chunk);
          entry.unread.push(buffer);
          this.#publish({ type: 'terminal-output', sessionId, terminalId: id, data: buffer.toString('base64') });
        },
      })
      .then(finish, (error: unknown) => {
        // It could not start (or the sandbox stopped it): the model reads why with bash_output.
        entry.unread.push(Buffer.from(`\n${error instanceof Error ? error.message : String(error)}\n`));
        finish({ exitCode: null, signal: null });
      });
    return id;
  }

  /** Output since the last read and the status; undefined for an id this session does not own. */
  read(sessionId: string, id: string): BackgroundSnapshot | undefined {
    const entry = this.#entries.get(id);
    if (!entry || entry.sessionId !== sessionId) return undefined;
    const { unread } = entry;
    entry.unread = new OutputBuffer({ maxBytes: UNREAD_MAX_BYTES, keep: 'tail' });
    // An exited command is forgotten once its last output was read.
    if (entry.exit) this.#entries.delete(id);
    return {
      id,
      command: entry.command,
      output: unread.text(),
      truncated: unread.truncated,
      running: !entry.exit,
      exitCode: entry.exit?.exitCode ?? null,
      signal: entry.exit?.signal ?? null,
    };
  }

  /** Waits until the command exits, or `ms` pass. */
  async settle(id: string, ms: number): Promise<void> {
    const entry = this.#entries.get(id);
    if (!entry) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([entry.done, new Promise<void>((done) => (timer = setTimeout(done, ms)))]);
    clearTimeout(timer);
  }

  /** Stops one command and waits for it to end; false for an id this session does not own. */
  async kill(sessionId: string, id: string): Promise<boolean> {
    const entry = this.#entries.get(id);
    if (!entry || entry.sessionId !== sessionId) return false;
    entry.controller.abort();
    await entry.done;
    return true;
  }

  /** The announcements of the session's commands that still run. */
  running(sessionId: string): TerminalStart[] {
    return this.#sessionEntries(sessionId)
      .filter((entry) => !entry.exit)
      .map((entry) => entry.start);
  }

  list(sessionId: string): Array<{ id: string; command: string; running: boolean }> {
    return this.#sessionEntries(sessionId).map((entry) => ({ id: entry.id, command: entry.command, running: !entry.exit }));
  }

  /** Stops every command of the session and forgets them (session closed or deleted). */
  async stopSession(sessionId: string): Promise<void> {
    const entries = this.#sessionEntries(sessionId);
    for (const entry of entries) entry.controller.abort();
    await Promise.all(entries.map((entry) => entry.done));
    for (const entry of entries) this.#entries.delete(entry.id);
  }

  async stopAll(): Promise<void> {
    const sessions = new Set([...this.#entries.values()].map((entry) => entry.sessionId));
    await Promise.all([...sessions].map((sessionId) => this.stopSession(sessionId)));
    if (this.#exitHook) process.off('exit', this.#exitHook);
    this.#exitHook = undefined;
  }

  #sessionEntries(sessionId: string): Entry[] {
    return [...this.#entries.values()].filter((entry) => entry.sessionId === sessionId);
  }

  /** On process exit only synchronous work runs: aborting sends SIGTERM to each command's process group at once. */
  #ensureExitHook(): void {
    if (this.#exitHook) return;
    this.#exitHook = () => {
      for (const entry of this.#entries.values()) entry.controller.abort();
    };
    process.once('exit', this.#exitHook);
  }
}
