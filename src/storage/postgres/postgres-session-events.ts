import pg from 'pg';
import type { Pool } from 'pg';
import type { SessionEventFeed } from '../session-event-feed.js';
import type { LoadedEventRecord, StoredEventRecord } from '../session-records.js';
import { parseSeqRows, type CorruptRow, type EventRow } from '../session-rows.js';
import type { PostgresLeases } from './postgres-leases.js';

/** The channel every append notifies, with `<session id> <last seq>` (small: the reader reads the rows). */
export const SESSION_EVENTS_CHANNEL = 'plaited_session_events';
/** How long a lost LISTEN connection waits before it is opened again. */
const RECONNECT_MS = 500;

/**
 * The PostgreSQL session event feed: one dedicated LISTEN connection per replica (opened with
 * the first watcher, re-opened when it drops), whose notifications are handed to the watchers
 * of the session they name. Appends notify inside their transaction (postgres-session-storage.ts),
 * so a notification arrives only once its rows are visible.
 */
export class PostgresSessionEvents implements SessionEventFeed {
  readonly #watchers = new Map<string, Set<() => void>>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly url: string,
    private readonly pool: Pool,
    private readonly leases: PostgresLeases,
    private readonly report: (row: CorruptRow) => void,
  ) {}

  async watch(sessionId: string, onChange: () => void): Promise<() => void> {
    const watchers = this.#watchers.get(sessionId) ?? new Set<() => void>();
    this.#watchers.set(sessionId, watchers);
    watchers.add(onChange);
    // A failed connect is retried in the background; the watcher's own polling covers the gap.
    await this.#listen().catch(() => this.#scheduleReconnect());
    return () => {
      watchers.delete(onChange);
      if (watchers.size === 0 && this.#watchers.get(sessionId) === watchers) this.#watchers.delete(sessionId);
    };
  }

  async eventsAfter(sessionId: string, afterSeq: number): Promise<{ events: LoadedEventRecord[]; lastSeq: number }> {
    const { rows } = await this.pool.query<EventRow>('SELECT seq, type, data AS text FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq', [
      sessionId,
      afterSeq,
    ]);
    const events = parseSeqRows<StoredEventRecord>('events', sessionId, rows, 'type', this.report).map((event) => ({ ...event, sessionId }));
    return { events, lastSeq: rows.length > 0 ? Number(rows[rows.length - 1]!.seq) : afterSeq };
  }

  writerAlive(sessionId: string): Promise<boolean> {
    return this.leases.holderAlive(sessionId);
  }

  /** Ends the LISTEN connection; watchers hear nothing more. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#watchers.clear();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #listen(): Promise<void> {
    if (this.#client || this.#closed) return Promise.resolve();
    this.#connecting ??= this.#connect().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 10_000 });
    client.on('notification', (message) => this.#dispatch(message.payload));
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${SESSION_EVENTS_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) return void (await client.end().catch(() => undefined));
    this.#client = client;
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retry || this.#watchers.size === 0) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#listen().then(
        // Whatever was appended while nobody listened: every watcher reads again.
        () => this.#notifyAll(),
        () => this.#scheduleReconnect(),
      );
    }, RECONNECT_MS).unref();
  }

  #dispatch(payload: string | undefined): void {
    const sessionId = payload?.slice(0, payload.lastIndexOf(' '));
    if (!sessionId) return;
    for (const watcher of this.#watchers.get(sessionId) ?? []) watcher();
  }

  #notifyAll(): void {
    for (const watchers of this.#watchers.values()) for (const watcher of watchers) watcher();
  }
}
