import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from './pid-alive.js';

/**
 * A pids cgroup that caps how many tasks one sandboxed command may hold. Used
 * when the agent runs as root: the kernel never applies RLIMIT_NPROC to uid 0
 * (bubblewrap's user namespace maps root to root), so `ulimit -u` cannot stop
 * a fork bomb there. Non-root agents use `ulimit -u` and never get here.
 *
 * Works on cgroup v1 (`/sys/fs/cgroup/pids`) and on cgroup v2 when the pids
 * controller is delegated to the agent's own cgroup; anywhere else `create`
 * returns null and the caller reports the limit as unenforced.
 */
export interface ProcessLimitGroup {
  /** The group's directory in the cgroup filesystem. */
  readonly path: string;
  /** Shell text that moves the running shell into the group; children inherit it. */
  readonly joinCommand: string;
  /** How many forks the limit refused so far (the kernel's `pids.events` count). */
  forkRefusals(): number;
  /** Kills whatever is still in the group and removes it. */
  dispose(): Promise<void>;
}

/** bubblewrap, the wrapper shell, two socat bridges and the seccomp helper live in the group too. */
export const SANDBOX_PLUMBING_TASKS = 8;

/**
 * Set on the whole-agent child: a pids group the parent made and bound
 * writable into the sandbox, under which the child makes one group per
 * command. Without it a fork bomb inside the whole-agent sandbox would share
 * one budget with the agent and its network bridges, and take them down too.
 */
export const DELEGATED_PIDS_CGROUP_ENV = 'PLAITED_SANDBOX_PIDS_CGROUP';

let sequence = 0;

export function createProcessLimitGroup(maxTasks: number): ProcessLimitGroup | null {
  const parent = process.env[DELEGATED_PIDS_CGROUP_ENV] ?? findPidsHierarchy();
  if (!parent) return null;
  sweepOnce(parent);
  const dir = join(parent, `plaited-${process.pid}-${++sequence}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'pids.max'), String(maxTasks + SANDBOX_PLUMBING_TASKS));
  } catch {
    tryRemove(dir);
    return null;
  }
  return {
    path: dir,
    joinCommand: `echo $$ > '${join(dir, 'cgroup.procs')}'`,
    forkRefusals: () => readForkRefusals(dir),
    dispose: async () => {
      // Removal fails while killed tasks are still exiting: retry briefly.
      for (let attempt = 0; attempt < 20; attempt++) {
        for (const child of subgroups(dir)) {
          killAll(child);
          tryRemove(child);
        }
        killAll(dir);
        if (tryRemove(dir)) return;
        await new Promise((done) => setTimeout(done, 25));
      }
    },
  };
}

function readForkRefusals(dir: string): number {
  try {
    const match = /^max (\d+)/m.exec(readFileSync(join(dir, 'pids.events'), 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

const swept = new Set<string>();

/** Removes empty groups left by agents that were killed before they could clean up. */
function sweepOnce(parent: string): void {
  if (swept.has(parent)) return;
  swept.add(parent);
  for (const dir of subgroups(parent)) {
    const owner = /^plaited-(\d+)-\d+$/.exec(dir.slice(parent.length + 1))?.[1];
    if (!owner || pidAlive(Number(owner))) continue;
    for (const child of subgroups(dir)) tryRemove(child);
    tryRemove(dir);
  }
}

/** Groups a delegated parent's user left behind (a child that died mid-command). */
function subgroups(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(dir, entry.name));
  } catch {
    return [];
  }
}

/** Whether this process can make pids groups at all (for availability reports). */
export function canLimitProcessesWithCgroup(): boolean {
  const group = createProcessLimitGroup(1);
  void group?.dispose();
  return group !== null;
}

function findPidsHierarchy(): string | null {
  const v1 = '/sys/fs/cgroup/pids';
  if (existsSync(join(v1, 'tasks'))) return v1;
  try {
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('0::'));
    if (!own) return null;
    const dir = join('/sys/fs/cgroup', own.slice(3));
    const enabled = readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8');
    return enabled.split(/\s+/).includes('pids') ? dir : null;
  } catch {
    return null;
  }
}

function killAll(dir: string): void {
  let pids: number[];
  try {
    pids = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

function tryRemove(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return !existsSync(dir);
  }
}
