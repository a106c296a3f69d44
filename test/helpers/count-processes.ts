import { readdirSync, readFileSync } from 'node:fs';

/**
 * How many processes have a command line (arguments joined by spaces, as `pgrep -f` reads it)
 * that matches `pattern`. Read from /proc in this process: a test that waits for a process to
 * appear or to go can ask every 25 ms without starting a `pgrep` each time (each start costs
 * ~15 ms of CPU on the shared 2-core machine, a hundred of them per wait).
 */
export function countProcesses(pattern: RegExp): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${entry}/cmdline`, 'latin1');
    } catch {
      continue; // gone meanwhile
    }
    if (commandLine.length === 0) continue; // a kernel thread or a zombie
    if (pattern.test(commandLine.replace(/\0+$/, '').replaceAll('\0', ' '))) count++;
  }
  return count;
}

/** The live children of `parent` whose command line matches `pattern` (their pids), read from /proc. */
export function childProcesses(parent: number, pattern: RegExp): number[] {
  return liveProcesses().filter((proc) => proc.ppid === parent && pattern.test(proc.commandLine)).map((proc) => proc.pid);
}

/** The live descendants of `ancestor` (children, their children, …) whose command line matches `pattern`. */
export function descendantProcesses(ancestor: number, pattern: RegExp): number[] {
  const processes = liveProcesses();
  const below = new Set([ancestor]);
  // Parents come before children in no particular order: go round until no process joins.
  for (let grew = true; grew; ) {
    grew = false;
    for (const proc of processes) {
      if (!below.has(proc.ppid) || below.has(proc.pid)) continue;
      below.add(proc.pid);
      grew = true;
    }
  }
  return processes.filter((proc) => proc.pid !== ancestor && below.has(proc.pid) && pattern.test(proc.commandLine)).map((proc) => proc.pid);
}

function liveProcesses(): Array<{ pid: number; ppid: number; commandLine: string }> {
  const found: Array<{ pid: number; ppid: number; commandLine: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      found.push({ pid: Number(entry), ppid: Number(ppid), commandLine: readFileSync(`/proc/${entry}/cmdline`, 'latin1').replaceAll('\0', ' ') });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Whether `pid` is a live proc (a zombie, dead but not yet reaped, is not). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
