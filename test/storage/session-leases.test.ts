import { mkdtempSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/storage/session-store.js';

const stores: SessionStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

function open(path: string): SessionStore {
  const store = new SessionStore(path);
  stores.push(store);
  return store;
}

/** Writes a lease row as another process would have. */
function foreignLease(path: string, sessionId: string, row: { pid: number; namespace: string; heartbeatAt: number }): void {
  const db = new Database(path);
  db.prepare('INSERT OR REPLACE INTO session_leases (session_id, holder, pid, pid_namespace, heartbeat_at) VALUES (?, ?, ?, ?, ?)').run(
    sessionId,
    `${row.pid}:other`,
    row.pid,
    row.namespace,
    row.heartbeatAt,
  );
  db.close();
}

describe('SessionLeases', () => {
  it('refuses a session held by a live process in our pid namespace, and takes over a dead one', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'plaited-lease-')), 'state.db');
    const store = open(path);
    store.createSession({ sessionId: 's', cwd: '/tmp' });
    const namespace = readNamespace();
    foreignLease(path, 's', { pid: process.ppid, namespace, heartbeatAt: Date.now() });
    expect(store.leases.acquire('s')).toMatchObject({ pid: process.ppid });

    foreignLease(path, 's', { pid: 2 ** 22 + 12_345, namespace, heartbeatAt: Date.now() }); // no such pid
    expect(store.leases.acquire('s')).toBeUndefined();
    // Held now: acquiring again is fine, and a release lets anyone in.
    expect(store.leases.acquire('s')).toBeUndefined();
    store.leases.release('s');
    const db = new Database(path);
    expect(db.prepare('SELECT COUNT(*) FROM session_leases').pluck().get()).toBe(0);
    db.close();
  });

  it('trusts the heartbeat for a holder in another pid namespace (a sandboxed agent): fresh refuses, stale is taken over', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'plaited-lease-')), 'state.db');
    const store = open(path);
    store.createSession({ sessionId: 's', cwd: '/tmp' });
    foreignLease(path, 's', { pid: 2, namespace: 'pid:[1]', heartbeatAt: Date.now() });
    expect(store.leases.acquire('s')).toMatchObject({ pid: 2 });
    foreignLease(path, 's', { pid: 2, namespace: 'pid:[1]', heartbeatAt: Date.now() - 60_000 });
    expect(store.leases.acquire('s')).toBeUndefined();
  });
});

function readNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return 'unknown';
  }
}
