import { spawn } from 'node:child_process';
import { OutputBuffer, type OutputKeep } from './output-buffer.js';
import { ProcessSpawnError } from './process-spawn-error.js';
import { processLedger } from './process-ledger.js';
import { PROCESS_TAG_ENV, killTaggedProcesses, newProcessTag } from './process-tree.js';

export interface SpawnProcessOptions {
  /** The program; run directly, never through a shell (pass `bash` and `-c` for that). */
  file: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment of the child (callers merge process.env themselves). */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Cap on kept output bytes (per stream when `separateStderr`). */
  maxOutputBytes?: number;
  /** `tail` (default) keeps the last bytes; `head` keeps the first and stops the process once full. */
  keep?: OutputKeep;
  /** Keep stderr apart instead of interleaving it into `output`. */
  separateStderr?: boolean;
  /** Time between SIGTERM and SIGKILL when the process is stopped. */
  killGraceMs?: number;
  /** Every chunk as it arrives (both streams), before the kept output is cut. */
  onOutput?: (chunk: Buffer) => void;
}

export interface SpawnProcessResult {
  /** stdout and stderr interleaved in arrival order (stdout only with `separateStderr`). */
  output: string;
  /** stderr, when `separateStderr`; otherwise empty. */
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
}

/** Default cap so a runaway command cannot exhaust memory when the caller sets none. */
const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 500;
/**
 * After the main process exits, background children (`server &`) may keep the
 * pipes open forever; wait this long for the pipes to drain, then stop reading.
 */
const DRAIN_AFTER_EXIT_MS = 200;

/**
 * Runs a program in its own process group (`detached`), so that a timeout or an
 * abort kills everything it started: SIGTERM to the group, SIGKILL after a grace
 * period, and then every process tagged as this command's (process-tree.ts),
 * also those that left the group with `setsid`. Resolves for any exit status; rejects only when the process cannot start.
 */
export function spawnProcess(options: SpawnProcessOptions): Promise<SpawnProcessResult> {
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const keep = options.keep ?? 'tail';
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const output = new OutputBuffer({ maxBytes, keep });
  const stderr = options.separateStderr ? new OutputBuffer({ maxBytes, keep }) : output;

  return new Promise<SpawnProcessResult>((resolve, reject) => {
    let settled = false;
    let stopping = false;
    let timedOut = false;
    let aborted = false;
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    const timers: NodeJS.Timeout[] = [];

    const tag = newProcessTag();
    const child = spawn(options.file, [...options.args], {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), [PROCESS_TAG_ENV]: tag },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Recorded until it ends, so a start after a SIGKILL of this process can reap it.
    const ledger = processLedger();
    if (child.pid !== undefined) ledger?.record(child.pid, tag);

    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already gone. Nothing else can fail for our own child.
      }
      // What left the group (setsid, a daemon's double fork) goes too.
      if (signal === 'SIGKILL') killTaggedProcesses(tag);
    };

    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), graceMs);
      timer.unref();
      timers.push(timer);
    };

    const onAbort = (): void => {
      aborted = true;
      stop();
    };

    const cleanup = (): void => {
      for (const timer of timers) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };

    const finish = (): void => {
      if (settled) return;
      settled = true;
      // Children that ignored SIGTERM must not outlive a stopped command.
      if (stopping) killGroup('SIGKILL');
      if (child.pid !== undefined) ledger?.forget(child.pid);
      cleanup();
      resolve({
        output: output.text(),
        stderr: options.separateStderr ? stderr.text() : '',
        exitCode,
        signal: exitSignal,
        truncated: output.truncated || (options.separateStderr ? stderr.truncated : false),
        timedOut,
        aborted,
      });
    };

    const onData = (buffer: OutputBuffer) => (chunk: Buffer) => {
      buffer.push(chunk);
      options.onOutput?.(chunk);
      // A full head buffer means the caller has what it needs: stop the producer.
      if (buffer === output && output.full) stop();
    };
    child.stdout.on('data', onData(output));
    child.stderr.on('data', onData(stderr));

    // `on`, not `once`: a later error (a failed kill) must not become an uncaught 'error' event.
    child.on('error', (error) => {
      if (settled || child.pid !== undefined) return;
      settled = true;
      cleanup();
      reject(new ProcessSpawnError({ file: options.file, cwd: options.cwd, cause: error }));
    });

    child.once('exit', (code, signal) => {
      exitCode = code;
      exitSignal = signal;
      const timer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, DRAIN_AFTER_EXIT_MS);
      timer.unref();
      timers.push(timer);
    });

    child.once('close', finish);

    if (options.timeoutMs !== undefined && options.timeoutMs > 0) {
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, options.timeoutMs);
      timer.unref();
      timers.push(timer);
    }

    if (options.signal) {
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}
