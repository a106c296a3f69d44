import { readdirSync, readFileSync } from 'node:fs';

/**
 * The host pid of the agent the launcher runs under bubblewrap: the process nearest `root` (the
 * launcher's child, itself included) whose program is `execPath`. bubblewrap forwards no signal
 * to what it runs (a SIGTERM kills bubblewrap, and `--die-with-parent` then SIGKILLs the agent,
 * which never stops cleanly), so the launcher signals the agent itself. Undefined when none runs.
 */
export function sandboxedAgentPid(root: number, execPath: string): number | undefined {
  const children = childrenByParent();
  for (let level = [root]; level.length > 0; level = level.flatMap((pid) => children.get(pid) ?? [])) {
    const found = level.find((pid) => programOf(pid) === execPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

function childrenByParent(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

function programOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0];
  } catch {
    return undefined;
  }
}
