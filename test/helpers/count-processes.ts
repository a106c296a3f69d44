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
