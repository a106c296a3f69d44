import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import type { Writable } from 'node:stream';
import { SECRETS_FD_ENV, sendSecrets, splitSecrets } from '../tools/secret-hand-over.js';
import { scrubOwnEnviron } from './scrub-own-environ.js';
import { FORWARDED_SIGNALS, gateForwardedSignals } from './signal-gate.js';

/**
 * The child's lifeline: a pipe from the launcher that carries only the signals it passes on, one
 * name a line (signal-gate.ts); its end means the launcher is gone.
 */
export const LIFELINE_FD_ENV = 'PLAITED_LIFELINE_FD';

export type ReexecOutcome = { ran: false } | { ran: true; code: number; signal: NodeJS.Signals | null };

/**
 * When this process started with secret-looking variables in its environment
 * (`PLAITED_API_KEY`, `PLAITED_AUTH_TOKEN`, provider keys, anything
 * `isSecretEnv` flags), runs the same script again, with the same runtime and
 * flags, as a child whose environment lacks them: they go over descriptor 3
 * (see tools/secret-hand-over.ts), so no tool reading `/proc/<agent>/environ`
 * finds them. This process then only waits: stdio is inherited (the protocol's
 * bytes never pass through it), signals are forwarded, the child's exit is its
 * own, and its own starting block is blanked (scrub-own-environ.ts) since it
 * stays alive one `/proc` hop above the agent.
 *
 * Resolves to `{ ran: false }` when there is nothing to move (the caller goes on
 * as the agent), or to the child's exit.
 */
export async function reexecWithoutSecrets(argv: readonly string[], warn: (message: string) => void): Promise<ReexecOutcome> {
  const { env, secrets } = splitSecrets(process.env);
  const names = Object.keys(secrets);
  if (names.length === 0 || process.argv[1] === undefined) return { ran: false };
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...argv], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe', 'pipe'],
    env: { ...env, [SECRETS_FD_ENV]: '3', [LIFELINE_FD_ENV]: '4' },
  });
  sendSecrets(child.stdio[3] as Writable | null, secrets);
  if (!scrubOwnEnviron(names)) {
    warn(`could not blank this launcher's starting environment (/proc/${process.pid}/environ); its secrets stay readable there to processes of the same user`);
  }
  // Over the lifeline, not with kill: the agent then tells one press sent to the whole group from two.
  const lifeline = child.stdio[4] as Writable | null;
  lifeline?.on('error', () => undefined);
  const forwards = FORWARDED_SIGNALS.map((signal) => [signal, () => void lifeline?.write(`${signal}\n`)] as const);
  for (const [signal, forward] of forwards) process.on(signal, forward);
  try {
    return await new Promise<ReexecOutcome>((resolve) => {
      child.once('error', (error) => {
        warn(`could not start the agent without its secrets in the environment: ${error.message}`);
        resolve({ ran: true, code: 1, signal: null });
      });
      child.once('exit', (code, signal) => resolve({ ran: true, code: code ?? (signal ? 128 + constants.signals[signal] : 1), signal }));
    });
  } finally {
    for (const [signal, forward] of forwards) process.off(signal, forward);
  }
}

/**
 * In the re-executed child: dies with the launcher. The launcher holds the
 * other end of descriptor `PLAITED_LIFELINE_FD` and writes on it only the
 * signals it passes on (signal-gate.ts); when the launcher is gone (killed with
 * SIGKILL, say) the end arrives and this process ends too, as a child of a
 * killed CLI is expected to.
 */
export function holdLifeline(env: NodeJS.ProcessEnv = process.env): void {
  const marker = env[LIFELINE_FD_ENV];
  if (marker === undefined) return;
  delete env[LIFELINE_FD_ENV];
  const fd = Number(marker);
  if (!Number.isInteger(fd) || fd < 3) return;
  try {
    const lifeline = openLifeline(fd);
    const passOn = gateForwardedSignals();
    let pending = '';
    lifeline.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const signal of lines) passOn(signal);
    });
    lifeline.on('error', () => undefined);
    lifeline.once('close', () => process.kill(process.pid, 'SIGKILL'));
  } catch {
    // No lifeline: a signal sent to the group still reaches this process; one sent to the launcher alone does not.
  }
}

/**
 * The lifeline's read end as a stream of text that ends when the launcher is gone. Node reads a
 * pipe as a socket (off the file thread pool, which a read waiting for ever would hold; unref'd,
 * so it keeps nothing alive). Bun's socket never reads such a descriptor: there the agent heard
 * no forwarded signal and outlived a killed launcher (a server kept its port), so a file stream.
 */
function openLifeline(fd: number): NodeJS.ReadableStream & { on(event: string, listener: (...args: never[]) => void): unknown } {
  if (typeof process.versions.bun === 'string') return createReadStream('', { fd, encoding: 'utf8' });
  const socket = new Socket({ fd, readable: true, writable: false });
  socket.setEncoding('utf8');
  socket.unref();
  return socket;
}
