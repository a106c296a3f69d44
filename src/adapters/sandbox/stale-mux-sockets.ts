import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from './pid-alive.js';

/** The sandbox library's proxy socket: `srt-mux-<pid>-<n>.sock` in $TMPDIR (mux-proxy.js). */
const MUX_SOCKET = /^srt-mux-(\d+)-[0-9a-z]+\.sock$/;
/** Its bridges' sockets, named without a pid: `claude-http-<id>.sock`, `claude-socks-<id>.sock` (linux-sandbox-utils.js). */
const BRIDGE_SOCKET = /^claude-(?:http|socks)-[0-9a-f]+\.sock$/;

/**
 * Removes the proxy sockets a killed process left in `dir` (a clean exit removes its own:
 * resetSandboxRuntime): those whose pid is gone (the bridges' name none) and on which nothing
 * listens, so a live process of another pid namespace sharing the folder keeps its own. `names`:
 * the folder's listing when the caller has it. Resolves to the names removed.
 */
export async function removeStaleMuxSockets(dir: string = tmpdir(), names: readonly string[] | null = listQuietly(dir)): Promise<string[]> {
  if (names === null) return [];
  const candidates = names.filter((name) => {
    const pid = MUX_SOCKET.exec(name)?.[1];
    const stale = pid === undefined ? BRIDGE_SOCKET.test(name) : !pidAlive(Number(pid));
    return stale && isOwnSocket(join(dir, name));
  });
  const removed = await Promise.all(candidates.map(async (name) => ((await nobodyListens(join(dir, name))) && unlinkQuietly(join(dir, name)) ? name : undefined)));
  return removed.filter((name): name is string => name !== undefined);
}

function isOwnSocket(path: string): boolean {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat !== undefined && stat.isSocket() && stat.uid === process.getuid?.();
}

/** Connection refused: no process holds it any more. Anything else (it answers, no access) leaves it. */
function nobodyListens(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

function unlinkQuietly(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A folder's names; `null` when it cannot be read. */
export function listQuietly(dir: string): string[] | null {
  try {
    return readdirSync(dir);
  } catch {
    return null;
  }
}
