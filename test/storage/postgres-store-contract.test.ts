import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSessionStores } from '../../src/storage/open-session-stores.js';
import { POSTGRES_SCHEMA_VERSION } from '../../src/storage/postgres/postgres-schema.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { describeStoreContract } from './store-contract.js';
import { describeA2aTaskRecordsContract } from './a2a-task-records-contract.js';
import { waitFor } from '../helpers/wait-for.js';
import type { SessionStores } from '../../src/storage/session-storage.js';

// A real server on loopback, started here; missing binaries fail the file (never a skip).
let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);

describeStoreContract('PostgreSQL', async () => ({ spec: await cluster.createDatabase() }));

// Each open is another replica: its own pool on the same database.
const replicas: SessionStores[] = [];
afterEach(async () => {
  for (const stores of replicas.splice(0)) await stores.closeAll();
});
describeA2aTaskRecordsContract('PostgreSQL', async () => {
  const url = await cluster.createDatabase();
  return {
    open: async () => {
      const stores = await openSessionStores({ url });
      replicas.push(stores);
      return stores.a2aTasks!();
    },
  };
});

describe('PostgreSQL driver', () => {
  it('migrates once when several replicas open a fresh database at the same moment', async () => {
    const url = await cluster.createDatabase();
    const replicas = await Promise.all(Array.from({ length: 4 }, () => openSessionStores({ url })));
    try {
      await replicas[0]!.forProject('/p').createSession({ sessionId: 's', cwd: '/p' });
      expect(await replicas[3]!.forProject('/p').getSession('s')).toMatchObject({ sessionId: 's' });
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ version: number }>('SELECT version FROM plaited_schema ORDER BY version');
      await client.end();
      expect(rows.map((row) => row.version)).toEqual(Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1));
    } finally {
      for (const replica of replicas) await replica.closeAll();
    }
  });

  it('records the lease epoch each message and event was written under (NULL: written without a lease)', async () => {
    const url = await cluster.createDatabase();
    const [first, second, third] = await Promise.all([openSessionStores({ url }), openSessionStores({ url }), openSessionStores({ url })]);
    try {
      const [a, b, c] = [first, second, third].map((stores) => stores.forProject('/p'));
      await a!.createSession({ sessionId: 's', cwd: '/p' });
      expect(await a!.leases.acquire('s')).toBeUndefined();
      await a!.appendMessages('s', [{ role: 'user', content: 'one' }]);
      await a!.appendEvents('s', [{ type: 'text-delta', text: 'one' }]);
      expect(await b!.leases.acquire('s')).toBeUndefined(); // the same holder (this process) takes it again: a new epoch
      await b!.appendMessages('s', [{ role: 'user', content: 'two' }]);
      await expect(a!.appendMessages('s', [{ role: 'user', content: 'late' }])).rejects.toMatchObject({ code: 'session_in_use' });
      await c!.appendEvents('s', [{ type: 'text-delta', text: 'unleased' }]);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const messages = await client.query<{ lease_epoch: number | null }>("SELECT lease_epoch FROM messages WHERE session_id = 's' ORDER BY seq");
      const events = await client.query<{ lease_epoch: number | null }>("SELECT lease_epoch FROM events WHERE session_id = 's' ORDER BY seq");
      await client.end();
      expect(messages.rows.map((row) => row.lease_epoch)).toEqual([1, 2]);
      expect(events.rows.map((row) => row.lease_epoch)).toEqual([1, null]);
    } finally {
      for (const stores of [first, second, third]) await stores.closeAll();
    }
  });

  it('refuses a database written by a newer release with schema_too_new', async () => {
    const url = await cluster.createDatabase();
    await (await openSessionStores({ url })).closeAll();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('INSERT INTO plaited_schema (version) VALUES ($1)', [POSTGRES_SCHEMA_VERSION + 1]);
    await client.end();
    await expect(openSessionStores({ url })).rejects.toMatchObject({ code: 'schema_too_new' });
  });

  it('names an unreachable server without its password: open_failed', async () => {
    const url = cluster.url('postgres').replace('postgres@', 'postgres:hunter2-secret@').replace(/:\d+\//, ':1/');
    const failure = (await openSessionStores({ url }).then(
      () => new Error('expected open_failed'),
      (error: unknown) => error,
    )) as Error & { code: string };
    expect(failure).toMatchObject({ code: 'open_failed' });
    expect(failure.message).toContain('postgres:***@127.0.0.1:1/');
    expect(failure.message).not.toContain('hunter2-secret');
    // A server that may still be starting: not permanent (a replica serves and retries).
    expect(failure).toMatchObject({ permanent: false });
  });

  it('a user who may not create the schema: permanent, with the grant that fixes it', async () => {
    const url = await cluster.createDatabase();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const role = `agent_${process.pid}`;
    try {
      // PostgreSQL 15 on: only the database's owner may create in schema public, as an operator's new user finds.
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    } finally {
      await admin.end();
    }
    const database = new URL(url).pathname.slice(1);
    const failure = (await openSessionStores({ url: url.replace('postgres@', `${role}@`) }).then(
      () => new Error('expected open_failed'),
      (error: unknown) => error,
    )) as Error & { code: string; permanent: boolean };
    expect(failure).toMatchObject({ code: 'open_failed', permanent: true });
    expect(failure.message).toContain(`permission denied for schema public; the schema is created at start: as the database's owner, GRANT CREATE ON SCHEMA public TO ${role} (or ALTER DATABASE ${database} OWNER TO ${role})`);
  });

  it('the A2A change feed survives a dropped connection: watchers look again, later saves are heard', async () => {
    const url = await cluster.createDatabase();
    const stores = await openSessionStores({ url });
    replicas.push(stores);
    const records = stores.a2aTasks!();
    let told = 0;
    records.watchTask!('t', () => told++);
    await waitFor(() => told >= 1, 10_000, 'the feed to listen');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
      );
      expect(rows[0]!.n).toBe(1);
      const afterDrop = told;
      // Told again once it listens anew (a save may have been missed), then of each save.
      await waitFor(() => told > afterDrop, 10_000, 'the feed to listen again');
      const relistened = told;
      await records.saveTask({ taskId: 't', contextId: 'c', owner: 'o', state: 'TASK_STATE_WORKING', json: '{}' });
      await waitFor(() => told === relistened + 1, 10_000, 'the save after the drop to be heard');
    } finally {
      await admin.end();
    }
  });
});
