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
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== parent || state === 'Z') continue;
      if (pattern.test(readFileSync(`/proc/${entry}/cmdline`, 'latin1').replaceAll('\0', ' '))) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Whether `pid` is a live process (a zombie, dead but not yet reaped, is not). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
