import type { Pool } from 'pg';
import type { PostgresListener } from './postgres-listener.js';
import type { SessionEventFeed } from '../session-event-feed.js';
import type { LoadedEventRecord, StoredEventRecord } from '../session-records.js';
import { parseSeqRows, type CorruptRow, type EventRow } from '../session-rows.js';
import type { PostgresLeases } from './postgres-leases.js';

/** The channel every append notifies, with `<session id> <last seq>` (small: the reader reads the rows). */
export const SESSION_EVENTS_CHANNEL = 'plaited_session_events';

/**
 * The PostgreSQL session event feed, on the replica's one LISTEN connection (postgres-listener.ts).
 * Appends notify inside their transaction (postgres-session-storage.ts), so a notification arrives
 * only once its rows are visible.
 */
export class PostgresSessionEvents implements SessionEventFeed {
  constructor(
    private readonly listener: PostgresListener,
    private readonly pool: Pool,
    private readonly leases: PostgresLeases,
    private readonly report: (row: CorruptRow) => void,
  ) {}

  async watch(sessionId: string, onChange: () => void): Promise<() => void> {
    const stop = this.listener.watch(SESSION_EVENTS_CHANNEL, sessionId, onChange);
    // A failed connect is retried in the background; the watcher's own polling covers the gap.
    await this.listener.listening().catch(() => undefined);
    return stop;
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
}
