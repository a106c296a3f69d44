import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { leaseHolderAlive, PID_NAMESPACE } from '../lease-holder-alive.js';
import type { Pool, PoolClient } from 'pg';
import type { LeaseConflict, SessionLeaseOptions } from '../session-leases.js';
import type { SessionStorageLeases } from '../session-storage.js';
import { StorageError } from '../storage-error.js';
import { postgresTransaction } from './postgres-transaction.js';

type LeaseRow = { holder: string; host: string; pid: number; pid_namespace: string; heartbeat_at: number; now: number };

const HOST = hostname();
/** This replica, as a lease holder: unique across hosts and pid reuse. */
const HOLDER = `${HOST}:${process.pid}:${randomUUID()}`;
/** The database's clock in ms: heartbeats are compared on one clock whatever the replicas' clocks say. */
const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * One writer per session across replicas sharing a database: `SessionLeases` (see
 * session-leases.ts) on PostgreSQL. A lease row names its holder's host and pid; a holder on
 * another host is trusted while it renews (within `staleMs`), one on this host is also checked
 * by pid. Taking a lease bumps the session's `lease_epoch` under the session row's lock, and
 * every write checks its epoch under that same lock (`assertHeld`), so a replica frozen past its
 * lease cannot interleave writes with the one that took the session over.
 */
export class PostgresLeases implements SessionStorageLeases {
  readonly #held = new Map<string, number>();
  readonly #heartbeatMs: number;
  readonly #staleMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly location: string,
    options: SessionLeaseOptions = {},
  ) {
    this.#heartbeatMs = options.heartbeatMs ?? 5_000;
    this.#staleMs = options.staleMs ?? 20_000;
  }

  async acquire(sessionId: string): Promise<LeaseConflict | undefined> {
    const outcome = await postgresTransaction(this.pool, async (client): Promise<LeaseConflict | number | undefined> => {
      const session = await client.query<{ epoch: number }>('SELECT lease_epoch AS epoch FROM sessions WHERE id = $1 FOR UPDATE', [sessionId]);
      const current = session.rows[0];
      if (!current) return undefined; // no such session: nothing to hold
      const lease = await client.query<LeaseRow>(
        `SELECT holder, host, pid, pid_namespace, heartbeat_at::float8 AS heartbeat_at, ${DB_NOW}::float8 AS now FROM session_leases WHERE session_id = $1`,
        [sessionId],
      );
      const row = lease.rows[0];
      if (row && row.holder !== HOLDER && this.#alive(row)) return { pid: row.pid, idleMs: Math.max(0, row.now - row.heartbeat_at), host: row.host };
      await client.query('UPDATE sessions SET lease_epoch = lease_epoch + 1 WHERE id = $1', [sessionId]);
      await client.query(
        `INSERT INTO session_leases (session_id, holder, host, pid, pid_namespace, heartbeat_at) VALUES ($1, $2, $3, $4, $5, ${DB_NOW})
         ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, host = excluded.host, pid = excluded.pid,
           pid_namespace = excluded.pid_namespace, heartbeat_at = excluded.heartbeat_at`,
        [sessionId, HOLDER, HOST, process.pid, PID_NAMESPACE],
      );
      return current.epoch + 1;
    });
    if (typeof outcome === 'object') return outcome;
    if (outcome !== undefined) {
      this.#held.set(sessionId, outcome);
      this.#timer ??= setInterval(() => void this.renew(), this.#heartbeatMs).unref();
    }
    return undefined;
  }

  async holds(sessionId: string): Promise<boolean> {
    const epoch = this.#held.get(sessionId);
    if (epoch === undefined) return true;
    const { rows } = await this.pool.query<{ epoch: number }>('SELECT lease_epoch AS epoch FROM sessions WHERE id = $1', [sessionId]);
    return rows[0] === undefined || rows[0].epoch === epoch;
  }

  async heldByAnother(sessionId: string): Promise<boolean> {
    const row = await this.#leaseRow(sessionId);
    return row !== undefined && row.holder !== HOLDER && this.#alive(row);
  }

  async #leaseRow(sessionId: string, client: Pick<PoolClient, 'query'> = this.pool): Promise<LeaseRow | undefined> {
    const { rows } = await client.query<LeaseRow>(
      `SELECT holder, host, pid, pid_namespace, heartbeat_at::float8 AS heartbeat_at, ${DB_NOW}::float8 AS now FROM session_leases WHERE session_id = $1`,
      [sessionId],
    );
    return rows[0];
  }

  /**
   * Locks the session's row for the caller's transaction and throws `session_in_use` when this
   * replica's epoch is no longer the current one. Returns `undefined` when the session does not
   * exist, else the epoch this replica writes under (`null` when it holds no lease on it).
   */
  async lockAndAssertHeld(client: PoolClient, sessionId: string, touchedAt?: string): Promise<{ epoch: number | null } | undefined> {
    // A write marks the session active in the same round trip: the UPDATE locks the row as FOR UPDATE
    // would against every other writer (each locks it first), and a refused write rolls it back.
    const { rows } =
      touchedAt === undefined
        ? await client.query<{ epoch: number }>('SELECT lease_epoch AS epoch FROM sessions WHERE id = $1 FOR UPDATE', [sessionId])
        : await client.query<{ epoch: number }>('UPDATE sessions SET updated_at = $2 WHERE id = $1 RETURNING lease_epoch AS epoch', [sessionId, touchedAt]);
    const held = this.#held.get(sessionId);
    if (rows[0] === undefined) return undefined;
    if (held === undefined) return this.#unleased(client, sessionId);
    if (rows[0].epoch === held) return { epoch: held };
    throw new StorageError(
      'session_in_use',
      `Session "${sessionId}" was taken over by another plaited-agent replica while this one was not renewing its lease; this write was refused. Load the session again to continue from what the other replica wrote`,
      { path: this.location, sessionId },
    );
  }

  /** Whether a live replica (this one included) holds the session's lease; reads only. */
  async holderAlive(sessionId: string): Promise<boolean> {
    const row = await this.#leaseRow(sessionId);
    return row !== undefined && (row.holder === HOLDER || this.#alive(row));
  }

  /**
   * A write by a replica holding no lease on the session (it never took one, or let it go): let
   * through unless another live replica holds the session now, whose turns it would interleave with.
   */
  async #unleased(client: PoolClient, sessionId: string): Promise<{ epoch: null }> {
    const row = await this.#leaseRow(sessionId, client);
    if (!row || row.holder === HOLDER || !this.#alive(row)) return { epoch: null };
    throw new StorageError(
      'session_in_use',
      `Session "${sessionId}" is held by another plaited-agent replica (pid ${row.pid} on ${row.host}) and this one holds no lease on it (it closed the session, or never opened it); this write was refused. Open the session again to write to it`,
      { path: this.location, sessionId },
    );
  }

  forget(sessionId: string): void {
    this.#held.delete(sessionId);
    if (this.#held.size === 0) this.#stopTimer();
  }

  async release(sessionId: string): Promise<void> {
    if (!this.#held.delete(sessionId)) return;
    if (this.#held.size === 0) this.#stopTimer();
    await this.pool.query('DELETE FROM session_leases WHERE session_id = $1 AND holder = $2', [sessionId, HOLDER]);
  }

  async releaseAll(): Promise<void> {
    const sessions = [...this.#held.keys()];
    this.#held.clear();
    this.#stopTimer();
    // Closing anyway when this fails: a lease left behind expires after `staleMs`.
    if (sessions.length > 0) await this.pool.query('DELETE FROM session_leases WHERE holder = $1', [HOLDER]).catch(() => undefined);
  }

  /** Renews every lease this replica holds (one statement); a missed beat is retried at the next. */
  async renew(): Promise<void> {
    await this.pool.query(`UPDATE session_leases SET heartbeat_at = ${DB_NOW} WHERE holder = $1`, [HOLDER]).catch(() => undefined);
  }

  #alive(row: LeaseRow): boolean {
    const pidVisible = row.host === HOST && row.pid_namespace === PID_NAMESPACE;
    return leaseHolderAlive({ heartbeatAgeMs: row.now - row.heartbeat_at, staleMs: this.#staleMs, pid: row.pid, pidVisible });
  }

  #stopTimer(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
