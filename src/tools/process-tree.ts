import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every process a tool command starts carries this variable. A process group
 * does not hold a command's whole tree: `setsid`, `nohup … &` with a new
 * session, or a daemon's double fork leave it, and once their parent exits they
 * are no one's child any more. The environment survives all of that, so a sweep
 * of `/proc` for the command's tag finds them (short of a process that
 * deliberately empties its own environment).
 */
export const PROCESS_TAG_ENV = 'PLAITED_PROCESS_TAG';

/** A fresh tag for one command. */
export function newProcessTag(): string {
  return randomUUID();
}

/** Sweeps that find nothing new before the kill is final: a forking tree cannot outrun a stopped one. */
const MAX_SWEEPS = 20;

/**
 * Stops every process carrying `tag` (SIGSTOP, so none can fork while the
 * tree is gathered), then SIGKILLs them all. Returns how many it killed. A
 * no-op where there is no `/proc`.
 */
export function killTaggedProcesses(tag: string): number {
  const needle = Buffer.from(`\0${PROCESS_TAG_ENV}=${tag}\0`);
  const found = new Set<number>();
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let fresh = 0;
    for (const pid of taggedPids(needle)) {
      if (found.has(pid)) continue;
      found.add(pid);
      fresh++;
      signal(pid, 'SIGSTOP');
    }
    if (fresh === 0) break;
  }
  for (const pid of found) signal(pid, 'SIGKILL');
  return found.size;
}

/** Whether process `pid` carries `tag` in its environment (false when it is gone or not ours to read). */
export function carriesProcessTag(pid: number, tag: string): boolean {
  const needle = Buffer.from(`\0${PROCESS_TAG_ENV}=${tag}\0`);
  try {
    return hasNeedle(readFileSync(`/proc/${pid}/environ`), needle);
  } catch {
    return false;
  }
}

function hasNeedle(environ: Buffer, needle: Buffer): boolean {
  // The first variable has no NUL before it.
  return environ.includes(needle) || environ.subarray(0, needle.length - 1).equals(needle.subarray(1));
}

function taggedPids(needle: Buffer): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue; // Gone, or another user's: not ours.
    }
    if (hasNeedle(environ, needle)) pids.push(pid);
  }
  return pids;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}
