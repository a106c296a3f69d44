import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ModelMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredAgentOutput } from '../../src/contracts/agent-output.js';
import { SessionStore, type CorruptRow } from '../../src/storage/session-store.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { SESSION_SCHEMA_VERSION } from '../../src/storage/session-schema.js';

/** A clock that moves one second per reading, so ordering by time is deterministic. */
function steppingClock(start = Date.UTC(2026, 0, 1)): () => Date {
  let t = start;
  return () => new Date((t += 1_000));
}

const server = {
  id: 'files',
  transport: 'stdio' as const,
  command: 'node',
  args: ['server.js'],
  env: {},
  headers: {},
  auth: { type: 'none' as const },
  timeoutMs: 30_000,
  enabled: true,
};

const messages: ModelMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'read the readme' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool-call', toolCallId: 'call-1', toolName: 'read_file', input: { path: 'README.md' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'call-1', toolName: 'read_file', output: { type: 'text', value: '# Hello' } },
    ],
  },
];

const events: StoredAgentOutput[] = [
  { sessionId: 's1', type: 'user-message', content: [{ type: 'text', text: 'read the readme' }] },
  { sessionId: 's1', type: 'text-delta', text: 'Reading it.' },
  {
    sessionId: 's1',
    type: 'tool-call',
    toolCallId: 'call-1',
    toolName: 'read_file',
    title: 'Read README.md',
    kind: 'read',
    status: 'pending',
    input: { path: 'README.md' },
    locations: [{ path: '/p/README.md' }],
  },
  { sessionId: 's1', type: 'tool-call-update', toolCallId: 'call-1', status: 'completed', content: [{ type: 'text', text: '# Hello' }] },
  { sessionId: 's1', type: 'turn-end', stopReason: 'end_turn' },
];

describe('SessionStore', () => {
  let dir: string;
  let file: string;
  const open: SessionStore[] = [];
  const openStore = (options?: ConstructorParameters<typeof SessionStore>[1]) => {
    const store = new SessionStore(file, options);
    open.push(store);
    return store;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'plaited-store-'));
    file = join(dir, 'nested', 'deeper', 'state.db');
  });
  afterEach(() => {
    for (const store of open.splice(0)) store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates parent folders and opens the file in WAL mode at the current schema version', () => {
    const store = openStore();
    expect(existsSync(file)).toBe(true);
    expect(store.journalMode()).toBe('wal');
    store.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(SESSION_SCHEMA_VERSION);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(['events', 'messages', 'session_leases', 'session_settings', 'sessions', 'stream_draft_chunks', 'tool_calls']);
    raw.close();
  });

  it('keeps sessions, messages, tool calls and events across close and reopen', () => {
    const first = openStore({ now: steppingClock() });
    const created = first.createSession({ sessionId: 's1', cwd: '/p', mcpServers: [server], mode: 'accept-edits' });
    expect(created).toMatchObject({ sessionId: 's1', cwd: '/p', title: null, mode: 'accept-edits', parentSessionId: null });
    first.appendMessages('s1', messages.slice(0, 2));
    first.appendMessages('s1', messages.slice(2));
    first.appendEvents('s1', events.slice(0, 3));
    first.appendEvents('s1', events.slice(3));
    first.recordToolCall({ sessionId: 's1', toolCallId: 'call-1', toolName: 'read_file', args: { path: 'README.md' } });
    expect(first.finishToolCall({ sessionId: 's1', toolCallId: 'call-1', status: 'completed', result: { text: '# Hello' } })).toBe(true);
    first.updateSession('s1', { title: 'Readme' });
    first.close();

    const second = openStore();
    const session = second.getSession('s1');
    expect(session).toMatchObject({ sessionId: 's1', cwd: '/p', title: 'Readme', mode: 'accept-edits', mcpServers: [server] });
    expect(session!.updatedAt > session!.createdAt).toBe(true);
    expect(second.loadMessages('s1')).toEqual(messages);
    expect(second.loadEvents('s1')).toEqual(events);
    const [call] = second.loadToolCalls('s1');
    expect(call).toMatchObject({
      toolCallId: 'call-1',
      toolName: 'read_file',
      args: { path: 'README.md' },
      status: 'completed',
      result: { text: '# Hello' },
    });
    expect(call!.finishedAt).not.toBeNull();
  });

  it('lists newest first, filters by cwd and honours the limit', () => {
    const store = openStore({ now: steppingClock() });
    store.createSession({ sessionId: 'a', cwd: '/one' });
    store.createSession({ sessionId: 'b', cwd: '/two' });
    store.createSession({ sessionId: 'c', cwd: '/one' });
    expect(store.listSessions().map((s) => s.sessionId)).toEqual(['c', 'b', 'a']);
    expect(store.listSessions({ cwd: '/one' }).map((s) => s.sessionId)).toEqual(['c', 'a']);
    expect(store.listSessions({ cwd: '/three' })).toEqual([]);
    expect(store.listSessions({ limit: 2 }).map((s) => s.sessionId)).toEqual(['c', 'b']);
    // Activity moves a session to the top.
    store.appendMessages('a', [{ role: 'user', content: 'again' }]);
    expect(store.listSessions({ cwd: '/one' }).map((s) => s.sessionId)).toEqual(['a', 'c']);
    store.updateSession('b', { mode: 'plan' });
    expect(store.listSessions()[0]).toMatchObject({ sessionId: 'b', mode: 'plan' });
  });

  it('updateSession changes only what it is given and reports a missing session', () => {
    const store = openStore({ now: steppingClock() });
    store.createSession({ sessionId: 's', cwd: '/p', title: 'first' });
    expect(store.updateSession('s', { mode: 'plan' })).toMatchObject({ title: 'first', mode: 'plan' });
    expect(store.updateSession('s', { title: null })).toMatchObject({ title: null, mode: 'plan' });
    expect(store.updateSession('nope', { title: 'x' })).toBeUndefined();
  });

  it('forkSession copies messages, events, tool calls and settings into a new session, in this store or another, whole or not at all', () => {
    const store = openStore();
    store.createSession({ sessionId: 's1', cwd: '/p', mode: 'plan' });
    store.appendMessages('s1', messages);
    store.appendEvents('s1', events);
    store.recordToolCall({ sessionId: 's1', toolCallId: 'call-1', toolName: 'read_file', args: { path: 'README.md' } });
    store.finishToolCall({ sessionId: 's1', toolCallId: 'call-1', status: 'completed', result: { text: '# Hello' } });
    store.settings.set('s1', 'model', 'big');
    store.settings.set('s1', 'additionalDirectories', ['/extra']);

    const forked = store.forkSession('s1', { sessionId: 'f1', cwd: '/p', mode: 'plan' }, store, { additionalDirectories: [] });
    expect(forked).toMatchObject({ sessionId: 'f1', cwd: '/p', mode: 'plan' });
    expect(store.loadMessages('f1')).toEqual(messages);
    expect(store.loadEvents('f1')).toEqual(events.map((event) => ({ ...event, sessionId: 'f1' })));
    expect(store.loadToolCalls('f1')).toMatchObject([{ toolCallId: 'call-1', status: 'completed', result: { text: '# Hello' } }]);
    expect(store.settings.get('f1')).toEqual({ model: 'big', additionalDirectories: [] });
    // Independent: the fork's new rows do not reach the source.
    store.appendMessages('f1', messages.slice(0, 1));
    expect(store.loadMessages('s1')).toEqual(messages);

    const other = new SessionStore(join(dir, 'other', 'state.db'));
    open.push(other);
    store.forkSession('s1', { sessionId: 'f2', cwd: '/q' }, other);
    expect(other.loadMessages('f2')).toEqual(messages);
    expect(store.getSession('f2')).toBeUndefined();
    // A clash leaves nothing behind; an unknown source is session_not_found.
    expect(() => store.forkSession('s1', { sessionId: 'f2', cwd: '/q' }, other)).toThrow(expect.objectContaining({ code: 'session_exists' }));
    expect(other.loadMessages('f2')).toEqual(messages);
    expect(() => store.forkSession('nope', { sessionId: 'f3', cwd: '/p' })).toThrow(expect.objectContaining({ code: 'session_not_found' }));
    expect(store.getSession('f3')).toBeUndefined();
  });

  it('deleting a session removes its messages, events and tool calls', () => {
    const store = openStore();
    store.createSession({ sessionId: 's1', cwd: '/p' });
    store.createSession({ sessionId: 'keep', cwd: '/p' });
    store.appendMessages('s1', messages);
    store.appendEvents('s1', events);
    store.appendEvents('keep', events.slice(0, 1));
    store.recordToolCall({ sessionId: 's1', toolCallId: 'call-1', toolName: 'read_file', args: {} });
    expect(store.deleteSession('s1')).toBe(true);
    expect(store.deleteSession('s1')).toBe(false);
    store.close();

    const raw = new Database(file, { readonly: true });
    for (const table of ['messages', 'events', 'tool_calls']) {
      expect(raw.prepare(`SELECT COUNT(*) FROM ${table} WHERE session_id = 's1'`).pluck().get()).toBe(0);
    }
    expect(raw.prepare(`SELECT COUNT(*) FROM events WHERE session_id = 'keep'`).pluck().get()).toBe(1);
    raw.close();
  });

  it('skips corrupt rows on load and reports them instead of failing', () => {
    const store = openStore();
    store.createSession({ sessionId: 's1', cwd: '/p' });
    store.appendMessages('s1', messages);
    store.appendEvents('s1', events);
    store.recordToolCall({ sessionId: 's1', toolCallId: 'call-1', toolName: 'read_file', args: {} });
    store.close();

    const raw = new Database(file);
    raw.prepare("UPDATE messages SET message = '{\"role\": \"user\", ' WHERE seq = 1").run();
    raw.prepare("UPDATE events SET data = 'not json' WHERE seq = 2").run();
    raw.prepare("UPDATE events SET data = '42' WHERE seq = 3").run();
    raw.prepare("UPDATE tool_calls SET args = '{oops'").run();
    raw.prepare("UPDATE sessions SET mcp_servers = '[{' ").run();
    raw.close();

    const corrupt: CorruptRow[] = [];
    const reopened = openStore({ onCorruptRow: (row) => corrupt.push(row) });
    expect(reopened.loadMessages('s1')).toEqual([messages[0], messages[2]]);
    expect(reopened.loadEvents('s1')).toEqual([events[0], events[1], events[4]]);
    expect(reopened.loadToolCalls('s1')).toEqual([]);
    expect(reopened.getSession('s1')).toMatchObject({ sessionId: 's1', mcpServers: [] });
    expect(corrupt.map((row) => `${row.table}:${row.key}`)).toEqual([
      'messages:1',
      'events:2',
      'events:3',
      'tool_calls:call-1',
      'sessions:mcp_servers',
    ]);
  });

  it('refuses a duplicate id and appends to an unknown session with typed errors', () => {
    const store = openStore();
    store.createSession({ sessionId: 's1', cwd: '/p' });
    const duplicate = catchError(() => store.createSession({ sessionId: 's1', cwd: '/q' }));
    expect(duplicate).toBeInstanceOf(StorageError);
    expect(duplicate).toMatchObject({ code: 'session_exists', sessionId: 's1', path: file });

    for (const append of [
      () => store.appendMessages('ghost', messages),
      () => store.appendMessages('ghost', []),
      () => store.appendEvents('ghost', events),
      () => store.recordToolCall({ sessionId: 'ghost', toolCallId: 'c', toolName: 't', args: {} }),
    ]) {
      expect(catchError(append)).toMatchObject({ code: 'session_not_found', sessionId: 'ghost' });
    }
    expect(store.finishToolCall({ sessionId: 's1', toolCallId: 'never', status: 'failed', result: null })).toBe(false);
  });

  it('refuses a file written by a newer schema and a file that is not a database', () => {
    const raw = new Database(join(dir, 'future.db'));
    raw.pragma('user_version = 999');
    raw.close();
    const future = catchError(() => new SessionStore(join(dir, 'future.db')));
    expect(StorageError.isInstance(future)).toBe(true);
    expect(future).toMatchObject({ code: 'schema_too_new' });

    const notDb = join(dir, 'notes.db');
    writeFileSync(notDb, 'this is not a sqlite file, just some text that is long enough '.repeat(20));
    const bad = catchError(() => new SessionStore(notDb));
    expect(bad).toMatchObject({ code: 'open_failed', path: notDb });
    expect((bad as Error).message).toContain(notDb);
  });

  it('stores binary message parts as base64 that round-trips', () => {
    const store = new SessionStore(':memory:');
    open.push(store);
    expect(store.journalMode()).toBe('memory');
    store.createSession({ sessionId: 's', cwd: '/p' });
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    store.appendMessages('s', [
      { role: 'user', content: [{ type: 'image', image: bytes, mediaType: 'image/png' }] },
      { role: 'user', content: [{ type: 'file', data: Buffer.from('hi'), mediaType: 'text/plain' }] },
    ]);
    const [image, file] = store.loadMessages('s') as Array<{ content: Array<Record<string, unknown>> }>;
    expect(Buffer.from(image!.content[0]!.image as string, 'base64')).toEqual(Buffer.from(bytes));
    expect(Buffer.from(file!.content[0]!.data as string, 'base64').toString()).toBe('hi');
  });

  it('two stores on one file see each other and never reuse a sequence number', () => {
    const a = openStore();
    const b = openStore();
    a.createSession({ sessionId: 's1', cwd: '/p' });
    expect(b.getSession('s1')).toBeDefined();
    a.appendEvents('s1', events.slice(0, 2));
    b.appendEvents('s1', events.slice(2, 4));
    a.appendEvents('s1', events.slice(4));
    expect(b.loadEvents('s1')).toEqual(events);
  });

  it('replaceMessages swaps the history and leaves events alone', () => {
    const store = openStore();
    store.createSession({ sessionId: 's1', cwd: '/p' });
    store.appendMessages('s1', messages);
    store.appendEvents('s1', events);
    const summary: ModelMessage[] = [{ role: 'user', content: 'summary of earlier work' }];
    store.replaceMessages('s1', summary);
    store.appendMessages('s1', [{ role: 'assistant', content: 'ok' }]);
    expect(store.loadMessages('s1')).toEqual([...summary, { role: 'assistant', content: 'ok' }]);
    expect(store.loadEvents('s1')).toHaveLength(events.length);
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('SessionStore shared by several processes', () => {
  it('interleaves whole batches from concurrent writers without losing or reusing a seq', async () => {
    const { spawn } = await import('node:child_process');
    const { resolve } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'plaited-store-mp-'));
    const file = join(dir, 'state.db');
    const store = new SessionStore(file);
    try {
      store.createSession({ sessionId: 'shared', cwd: dir });
      const jitiCli = resolve(import.meta.dirname, '../../node_modules/jiti/lib/jiti-cli.mjs');
      const worker = resolve(import.meta.dirname, '../fixtures/storage/append-worker.ts');
      expect(existsSync(jitiCli), `jiti CLI missing at ${jitiCli}`).toBe(true);
      const workers = ['w1', 'w2', 'w3'].map((name) => {
        // process.execPath: the Node that built better-sqlite3's binding runs the tests.
        const child = spawn(process.execPath, [jitiCli, worker, file, 'shared', name, '200'], { stdio: ['pipe', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
        const ready = new Promise<void>((done, fail) => {
          child.stdout!.once('data', () => done());
          child.on('exit', (code) => fail(new Error(`worker ${name} exited ${code} before ready: ${stderr}`)));
        });
        const exited = new Promise<void>((done, fail) => {
          child.on('error', fail);
          child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`worker ${name} exited ${code}: ${stderr}`))));
        });
        return { child, ready, exited };
      });
      await Promise.all(workers.map((w) => w.ready));
      for (const w of workers) w.child.stdin!.write('go\n');
      await Promise.all(workers.map((w) => w.exited));

      const texts = store.loadEvents('shared').map((event) => (event.type === 'text-delta' ? String(event.text) : event.type));
      expect(texts).toHaveLength(1200);
      expect(new Set(texts).size).toBe(1200);
      // The writers really overlapped: some batch of w1 comes after some batch of w2 and before another.
      const owners = texts.filter((_, i) => i % 2 === 0).map((text) => text.split(':')[0]);
      const switches = owners.filter((owner, i) => i > 0 && owner !== owners[i - 1]).length;
      expect(switches, 'writers ran one after another; the test did not exercise concurrency').toBeGreaterThan(2);
      // Each batch of two landed together.
      for (let i = 0; i < texts.length; i += 2) {
        expect(texts[i]!.replace(/:a$/, '')).toBe(texts[i + 1]!.replace(/:b$/, ''));
      }
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
