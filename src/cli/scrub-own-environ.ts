import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';

/**
 * Blanks the values of `names` in this process's *starting* environment block,
 * the bytes `/proc/<pid>/environ` shows to every process of the same user.
 *
 * The launcher that re-executed the agent without its secrets stays alive (it
 * owns the exit code and forwards signals), so its own block would still hold
 * them one `/proc/$PPID/...` hop further up. Node has no `execve` (before 22.15)
 * and cannot re-point the block (`prctl(PR_SET_MM)` needs CAP_SYS_RESOURCE), but
 * a process may write its own memory through `/proc/self/mem`: the block lies
 * between `env_start` and `env_end` (fields 50 and 51 of `/proc/self/stat`).
 * The variables are removed from `process.env` first, so libc no longer points
 * at those bytes. Returns whether every value is gone from `/proc/self/environ`.
 */
export function scrubOwnEnviron(names: readonly string[]): boolean {
  if (names.length === 0) return true;
  for (const name of names) delete process.env[name];
  let fd: number | undefined;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (the state).
    // User-space addresses fit in 47 bits, well inside a double's exact range.
    const start = Number(fields[50 - 3] ?? 0);
    const end = Number(fields[51 - 3] ?? 0);
    if (!(start > 0) || !(end > start)) return false;
    const block = Buffer.alloc(end - start);
    fd = openSync('/proc/self/mem', 'r+');
    readSync(fd, block, 0, block.length, start);
    let offset = 0;
    while (offset < block.length) {
      const stop = block.indexOf(0, offset);
      const entryEnd = stop === -1 ? block.length : stop;
      const entry = block.subarray(offset, entryEnd).toString('utf8');
      const equals = entry.indexOf('=');
      if (equals > 0 && names.includes(entry.slice(0, equals))) {
        // Keep `NAME=`, blank the value: the block keeps its layout, and nothing of the secret remains.
        const valueStart = offset + Buffer.byteLength(entry.slice(0, equals + 1));
        writeSync(fd, Buffer.alloc(entryEnd - valueStart), 0, entryEnd - valueStart, start + valueStart);
      }
      offset = entryEnd + 1;
    }
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return stillShown(names).length === 0;
}

/** The names whose value `/proc/self/environ` still shows. */
function stillShown(names: readonly string[]): string[] {
  try {
    const entries = readFileSync('/proc/self/environ', 'utf8').split('\0');
    return names.filter((name) => entries.some((entry) => entry.startsWith(`${name}=`) && entry.length > name.length + 1));
  } catch {
    return [...names];
  }
}
