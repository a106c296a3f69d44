import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './acp-cli.js';
import { trustProjectConfig } from './trust-config.js';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The built CLI run to its end in `cwd` (a one-shot command: `-p`, `sessions`, `doctor`...),
 * asynchronously, so a scripted model served by this test process keeps answering. The
 * project's config is trusted first (`trust: false`: not). `input` is written to its stdin, which is then closed (an empty pipe when absent).
 */
export function runCliOnce(args: readonly string[], options: { cwd: string; input?: string; env?: Record<string, string>; trust?: boolean }): Promise<CliRun> {
  // As a user would after writing a config; `trust: false` leaves trust to the command under test.
  if (options.trust !== false) trustProjectConfig(options.cwd, args, options.env);
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const run = finishedRun(child);
  child.stdin.end(options.input ?? '');
  return run;
}

/** A spawned process's exit status and everything it wrote, once it closed (a stdin held by this process is let go then). */
export function finishedRun(child: ChildProcess): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (status) => {
      child.stdin?.destroy();
      done({ status, stdout, stderr });
    });
  });
}
