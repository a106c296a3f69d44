import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSessionStores } from '../../src/storage/open-session-stores.js';
import type { SessionStores } from '../../src/storage/session-storage.js';
import { SESSION_EVENTS_CHANNEL } from '../../src/storage/postgres/postgres-session-events.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { waitFor } from '../helpers/wait-for.js';

let cluster: PostgresCluster;
const opened: SessionStores[] = [];
beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 120_000);
afterAll(async () => {
  for (const stores of opened) await stores.closeAll();
  await cluster?.stop();
}, 60_000);

async function replica(url: string) {
  const stores = await openSessionStores({ url });
  opened.push(stores);
  return stores.forProject('/p');
}

describe('PostgreSQL session event feed (LISTEN/NOTIFY)', () => {
  it("tells one replica of another's appends, read by sequence; the writer's lease says whether more may come", async () => {
    const url = await cluster.createDatabase();
    const writer = await replica(url);
    const reader = await replica(url);
    await writer.createSession({ sessionId: 's', cwd: '/p' });
    await writer.leases.acquire('s');
    const feed = reader.feed!;
    let heard = 0;
    const unwatch = await feed.watch('s', () => heard++);

    await writer.appendEvents('s', [{ type: 'text-delta', text: 'one ' }]);
    await waitFor(() => heard === 1, 10_000, 'the first append heard');
    const first = await feed.eventsAfter('s', -1);
    expect(first.events.map((event) => event.text)).toEqual(['one ']);

    await writer.appendEvents('s', [{ type: 'text-delta', text: 'two' }, { type: 'turn-end', stopReason: 'end_turn' }]);
    await waitFor(() => heard === 2, 10_000, 'the second append heard');
    const second = await feed.eventsAfter('s', first.lastSeq);
    expect(second.events.map((event) => event.type)).toEqual(['text-delta', 'turn-end']);
    expect(await feed.eventsAfter('s', second.lastSeq)).toEqual({ events: [], lastSeq: second.lastSeq });

    expect(await feed.writerAlive('s')).toBe(true);
    await writer.leases.release('s');
    expect(await feed.writerAlive('s')).toBe(false);
    unwatch();
  });

  it('re-opens a dropped LISTEN connection and calls every watcher once it is back', async () => {
    const url = await cluster.createDatabase();
    const writer = await replica(url);
    const reader = await replica(url);
    await writer.createSession({ sessionId: 's', cwd: '/p' });
    let heard = 0;
    await reader.feed!.watch('s', () => heard++);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ dropped: boolean }>(
        "SELECT pg_terminate_backend(pid) AS dropped FROM pg_stat_activity WHERE datname = current_database() AND query LIKE $1",
        [`%LISTEN ${SESSION_EVENTS_CHANNEL}%`],
      );
      expect(rows).toEqual([{ dropped: true }]);
    } finally {
      await admin.end();
    }
    // Back: the watcher is called (it may have missed appends), and later appends are heard again.
    await waitFor(() => heard === 1, 10_000, 'the watcher called after the reconnect');
    await writer.appendEvents('s', [{ type: 'text-delta', text: 'after' }]);
    await waitFor(() => heard === 2, 10_000, 'an append heard on the new connection');
  });
});
