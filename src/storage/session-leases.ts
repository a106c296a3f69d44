import { randomUUID } from 'node:crypto';
import { leaseHolderAlive, PID_NAMESPACE } from './lease-holder-alive.js';
import type { SqliteDatabase, SqliteStatement } from './sqlite/sqlite-database.js';
import { StorageError } from './storage-error.js';

/** Who holds a session another process asked for. */
export interface LeaseConflict {
  pid: number;
  /** Milliseconds since the holder last renewed its lease. */
  idleMs: number;
  /** The holder's host, when it may be another machine (a shared database). */
  host?: string;
}

export interface SessionLeaseOptions {
  /** How often held leases are renewed (default 5 s). */
  heartbeatMs?: number;
  /** A lease not renewed for this long is taken over (default 20 s): its holder is gone or hung. */
  staleMs?: number;
}

type LeaseRow = { holder: string; pid: number; pid_namespace: string; heartbeat_at: number };

/** This process, as a lease holder: unique even if a pid is reused (or is 2 in every sandbox). */
const HOLDER = `${process.pid}:${randomUUID()}`;

/**
 * One writer per session across processes sharing a state file: a process opening a
 * session takes its lease (a row with its pid and a heartbeat); another process asking
 * for it while the holder lives is refused. A holder that died (its pid is gone, in our
 * pid namespace) or stopped renewing is taken over, so a crash never locks a session out.
 *
 * Fenced by an epoch: taking a lease bumps the session's `lease_epoch` (compare-and-swap), and
 * every write of a holder checks, in the write's transaction, that its epoch is still the
 * current one. A holder that was frozen past its lease (SIGSTOP, a suspended VM) and woke up
 * after another process took the session over is so refused instead of interleaving turns.
 */
export class SessionLeases {
  readonly #db: SqliteDatabase;
  readonly #heartbeatMs: number;
  readonly #staleMs: number;
  /** Sessions this process took a lease on, with the epoch it took. */
  readonly #held = new Map<string, number>();
  readonly #get: SqliteStatement;
  readonly #epoch: SqliteStatement;
  readonly #bump: SqliteStatement;
  readonly #put: SqliteStatement;
  readonly #renew: SqliteStatement;
  readonly #release: SqliteStatement;
  #timer: NodeJS.Timeout | undefined;

  constructor(db: SqliteDatabase, options: SessionLeaseOptions = {}) {
    this.#db = db;
    this.#heartbeatMs = options.heartbeatMs ?? 5_000;
    this.#staleMs = options.staleMs ?? 20_000;
    this.#get = db.prepare('SELECT holder, pid, pid_namespace, heartbeat_at FROM session_leases WHERE session_id = ?');
    this.#put = db.prepare(`INSERT INTO session_leases (session_id, holder, pid, pid_namespace, heartbeat_at)
      SELECT @sessionId, @holder, @pid, @ns, @now WHERE EXISTS (SELECT 1 FROM sessions WHERE id = @sessionId)
      ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, pid_namespace = excluded.pid_namespace, heartbeat_at = excluded.heartbeat_at`);
    this.#epoch = db.prepare('SELECT lease_epoch AS epoch FROM sessions WHERE id = ?');
    this.#bump = db.prepare('UPDATE sessions SET lease_epoch = lease_epoch + 1 WHERE id = ? AND lease_epoch = ?');
    this.#renew = db.prepare('UPDATE session_leases SET heartbeat_at = ? WHERE holder = ?');
    this.#release = db.prepare('DELETE FROM session_leases WHERE session_id = ? AND holder = ?');
  }

  /** Takes the session's lease (a new epoch); the conflict when another live process holds it. */
  acquire(sessionId: string): LeaseConflict | undefined {
    const outcome = this.#db
      .transaction((): LeaseConflict | number | undefined => {
        const now = Date.now();
        const row = this.#get.get(sessionId) as LeaseRow | undefined;
        if (row && row.holder !== HOLDER && this.#alive(row, now)) return { pid: row.pid, idleMs: Math.max(0, now - row.heartbeat_at) };
        const current = this.#epoch.get(sessionId) as { epoch: number } | undefined;
        if (!current) return undefined; // no such session: nothing to hold
        if (this.#bump.run(sessionId, current.epoch).changes === 0) return undefined;
        this.#put.run({ sessionId, holder: HOLDER, pid: process.pid, ns: PID_NAMESPACE, now });
        return current.epoch + 1;
      })
      .immediate();
    if (typeof outcome === 'object') return outcome;
    if (outcome !== undefined) {
      this.#held.set(sessionId, outcome);
      this.#timer ??= setInterval(() => this.renew(), this.#heartbeatMs).unref();
    }
    return undefined;
  }

  /**
   * Whether this process may still write `sessionId`: its epoch is still the current one, or it
   * holds no lease on it (never took one, or let it go) and no other live process holds one.
   * Call it inside the write's transaction so nobody can take the lease between the check and the write.
   */
  holds(sessionId: string): boolean {
    const epoch = this.#held.get(sessionId);
    if (epoch === undefined) return !this.#heldElsewhere(sessionId);
    const current = this.#epoch.get(sessionId) as { epoch: number } | undefined;
    return current === undefined || current.epoch === epoch;
  }

  /** Whether another live process holds the session's lease (reads only). */
  heldByAnother(sessionId: string): boolean {
    const row = this.#get.get(sessionId) as LeaseRow | undefined;
    return row !== undefined && row.holder !== HOLDER && this.#alive(row, Date.now());
  }

  /** Throws `session_in_use` when another process took the session's lease over since this one took it, or holds it while this one holds none. */
  assertHeld(sessionId: string, path: string): void {
    if (this.holds(sessionId)) return;
    throw new StorageError(
      'session_in_use',
      this.#held.has(sessionId)
        ? `Session "${sessionId}" was taken over by another plaited-agent process while this one was not renewing its lease; this write was refused. Load the session again to continue from what the other process wrote`
        : `Session "${sessionId}" is held by another plaited-agent process and this one holds no lease on it (it closed the session, or never opened it); this write was refused. Open the session again to write to it`,
      { path, sessionId },
    );
  }

  #heldElsewhere(sessionId: string): boolean {
    const row = this.#get.get(sessionId) as LeaseRow | undefined;
    return row !== undefined && row.holder !== HOLDER && this.#alive(row, Date.now());
  }

  /** Forgets a lease another process took over, without touching its row: the next acquire starts anew. */
  forget(sessionId: string): void {
    this.#held.delete(sessionId);
    if (this.#held.size === 0) this.#stopTimer();
  }

  release(sessionId: string): void {
    if (!this.#held.delete(sessionId)) return;
    this.#release.run(sessionId, HOLDER);
    if (this.#held.size === 0) this.#stopTimer();
  }

  releaseAll(): void {
    for (const sessionId of [...this.#held.keys()]) {
      try {
        this.release(sessionId);
      } catch {
        // Closing anyway: a lease left behind is taken over once this pid is gone.
      }
    }
    this.#stopTimer();
  }

  /** Renews every lease this process holds in this file (one statement). */
  renew(): void {
    try {
      this.#renew.run(Date.now(), HOLDER);
    } catch {
      // A busy file this time: the next beat renews; the stale bound has room for several misses.
    }
  }

  #alive(row: LeaseRow, now: number): boolean {
    return leaseHolderAlive({ heartbeatAgeMs: now - row.heartbeat_at, staleMs: this.#staleMs, pid: row.pid, pidVisible: row.pid_namespace === PID_NAMESPACE });
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
