import { readlinkSync } from 'node:fs';

/** This process's pid namespace: a holder's pid can be checked only from the same one. */
export const PID_NAMESPACE = readPidNamespace();

/**
 * Whether a lease's holder still lives: its heartbeat is fresh, and — where its pid is visible
 * (same host and pid namespace) — that process exists and is not this one (our pid under
 * another holder is a previous life of this pid). One rule for every driver.
 */
export function leaseHolderAlive(holder: { heartbeatAgeMs: number; staleMs: number; pid: number; pidVisible: boolean }): boolean {
  if (holder.heartbeatAgeMs > holder.staleMs) return false;
  if (!holder.pidVisible) return true; // cannot see its pid: trust the heartbeat
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return 'unknown';
  }
}
