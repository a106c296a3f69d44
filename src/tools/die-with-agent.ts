import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { shellQuote } from './shell-quote.js';

let setprivPath: string | null | undefined;

/**
 * Makes a shell line that the agent spawns die with the agent from its first
 * instruction on. bubblewrap's `--die-with-parent` is armed by bwrap itself, once
 * it runs: an agent killed in the milliseconds between spawning the wrapper
 * shell and that moment leaves the sandbox reparented and never told, running
 * on. `setpriv --pdeathsig` arms the same signal at once; the shell it starts
 * then checks that its parent is still this agent (it may have died just
 * before), and execs the line, which keeps the signal (and the pid, so a pids
 * cgroup joined by `$$` is still the right process).
 *
 * Where util-linux's `setpriv` is missing, the line is returned unchanged and
 * bwrap's own flag is the only guard, as before.
 */
export function dieWithAgent(line: string): string {
  const setpriv = findSetpriv();
  if (!setpriv) return line;
  const guarded = `[ "$PPID" = ${process.pid} ] || exit 137\n${line}`;
  // bash, not sh: bash execs the line's last command, so no extra shell stays in between.
  return `exec ${shellQuote(setpriv)} --pdeathsig KILL -- bash -c ${shellQuote(guarded)}`;
}

function findSetpriv(): string | null {
  if (setprivPath !== undefined) return setprivPath;
  setprivPath = null;
  for (const folder of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, 'setpriv');
    try {
      accessSync(candidate, constants.X_OK);
      setprivPath = candidate;
      break;
    } catch {
      // Not in this folder.
    }
  }
  return setprivPath;
}
