import { readFileSync } from 'node:fs';

/**
 * When process `pid` started, in clock ticks after boot (field 22 of `/proc/<pid>/stat`), or
 * undefined when it does not exist (or there is no `/proc`). A pid and its start time name one
 * process for good: a pid the kernel reused has another start time.
 */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Field 3 (state) is fields[0], so field 22 is fields[19]. A zombie is already dead.
  if (fields[0] === 'Z') return undefined;
  return fields[19];
}
