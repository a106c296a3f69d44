import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStorage, SessionStores } from '../../src/storage/session-storage.js';
import { openSessionStores } from '../../src/storage/open-session-stores.js';
import { INTERRUPTED_MARK, recoverInterruptedReply } from '../../src/agent/recover-interrupted-reply.js';
import { waitForAsync } from '../helpers/wait-for.js';

/** A store to test: `spec` is what `openSessionStores` is given (a SQLite path or a postgres:// URL). */
export interface ContractTarget {
  spec: string;
}

const FAST_LEASES = { heartbeatMs: 100, staleMs: 1_000 };

/**
 * The one contract every storage driver keeps, run against each (sqlite-store-contract.test.ts,
 * postgres-store-contract.test.ts): what the core relies on, through the async seam only.
 */
export function describeStoreContract(driver: string, fresh: () => Promise<ContractTarget>): void {
  const opened: SessionStores[] = [];
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const stores of opened.splice(0)) await stores.closeAll();
  });
  async function open(spec: string): Promise<SessionStorage> {
    const stores = await openSessionStores(spec.startsWith('postgres') ? { url: spec, leases: FAST_LEASES } : { path: spec, leases: FAST_LEASES });
    opened.push(stores);
    return stores.forProject('/work');
  }

  describe(`store contract: ${driver}`, () => {
    it('creates, finds, lists (most recent first), updates and deletes sessions; a taken id is session_exists', async () => {
      const store = await open((await fresh()).spec);
      await store.createSession({ sessionId: 'a', cwd: '/p/one', mcpServers: [{ name: 'x' }], owner: 'alice' });
      await store.createSession({ sessionId: 'b', cwd: '/p/two', parentSessionId: 'a' });
      await expect(store.createSession({ sessionId: 'a', cwd: '/p/one' })).rejects.toMatchObject({ code: 'session_exists' });
      expect(await store.getSession('a')).toMatchObject({ sessionId: 'a', cwd: '/p/one', mode: 'default', owner: 'alice', mcpServers: [{ name: 'x' }], parentSessionId: null });
      expect(await store.getSession('nope')).toBeUndefined();
      expect(await store.updateSession('a', { title: 'First', mode: 'plan' })).toMatchObject({ title: 'First', mode: 'plan' });
      expect(await store.updateSession('nope', { title: 'x' })).toBeUndefined();
      expect((await store.listSessions()).map((session) => session.sessionId)).toEqual(['a', 'b']);
      expect((await store.listSessions({ cwd: '/p/two' })).map((session) => session.sessionId)).toEqual(['b']);
      expect(await store.listSessions({ limit: 1 })).toHaveLength(1);
      expect(await store.deleteSession('a')).toBe(true);
      expect(await store.deleteSession('a')).toBe(false);
      expect(await store.getSession('a')).toBeUndefined();
    });

    it('keeps messages, events, tool calls and settings in order, across a reopen', async () => {
      const { spec } = await fresh();
      const store = await open(spec);
      await store.createSession({ sessionId: 's', cwd: '/p' });
      await store.appendMessages('s', [{ role: 'user', content: 'one' }]);
      await store.appendMessages('s', [{ role: 'assistant', content: 'two' }, { role: 'user', content: 'three' }]);
      await store.appendEvents('s', [{ type: 'user-message', content: 'one' }, { type: 'text-delta', text: 'two' }]);
      await store.recordToolCall({ sessionId: 's', toolCallId: 'c1', toolName: 'read', args: { path: 'a' } });
      await store.recordToolCall({ sessionId: 's', toolCallId: 'c2', toolName: 'bash', args: { command: 'ls' } });
      expect(await store.finishToolCall({ sessionId: 's', toolCallId: 'c1', status: 'completed', result: { ok: 1 } })).toBe(true);
      expect(await store.finishToolCall({ sessionId: 's', toolCallId: 'zz', status: 'failed', result: null })).toBe(false);
      await expect(store.recordToolCall({ sessionId: 'nope', toolCallId: 'c', toolName: 't', args: {} })).rejects.toMatchObject({ code: 'session_not_found' });
      await expect(store.appendMessages('nope', [{ role: 'user', content: 'x' }])).rejects.toMatchObject({ code: 'session_not_found' });
      await store.settings.set('s', 'model', 'openai:gpt');
      await store.settings.set('s', 'model', 'anthropic:claude');

      const again = await open(spec);
      expect((await again.loadMessages('s')).map((message) => message.content)).toEqual(['one', 'two', 'three']);
      expect(await again.loadEvents('s')).toEqual([
        { type: 'user-message', content: 'one', sessionId: 's' },
        { type: 'text-delta', text: 'two', sessionId: 's' },
      ]);
      const calls = await again.loadToolCalls('s');
      expect(calls.map((call) => [call.toolCallId, call.status, call.result])).toEqual([['c1', 'completed', { ok: 1 }], ['c2', 'in_progress', undefined]]);
      expect(await again.settings.get('s')).toEqual({ model: 'anthropic:claude' });
      await again.replaceMessages('s', [{ role: 'user', content: 'summary' }]);
      expect((await again.loadMessages('s')).map((message) => message.content)).toEqual(['summary']);
    });

    it('forks a session: a new id with a copy of its messages, events, tool calls and settings, independent afterwards', async () => {
      const store = await open((await fresh()).spec);
      await store.createSession({ sessionId: 'src', cwd: '/p', owner: 'alice' });
      await store.appendMessages('src', [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'two' }]);
      await store.appendEvents('src', [{ type: 'user-message', content: 'one' }]);
      await store.recordToolCall({ sessionId: 'src', toolCallId: 'c1', toolName: 'read', args: { path: 'a' } });
      await store.finishToolCall({ sessionId: 'src', toolCallId: 'c1', status: 'completed', result: { ok: 1 } });
      await store.settings.set('src', 'model', 'openai:gpt');
      const forked = await store.forkSession('src', { sessionId: 'fork', cwd: '/p', owner: 'alice' }, store, { effort: 'high' });
      expect(forked).toMatchObject({ sessionId: 'fork', cwd: '/p' });
      expect((await store.loadMessages('fork')).map((message) => message.content)).toEqual(['one', 'two']);
      expect(await store.loadEvents('fork')).toEqual([{ type: 'user-message', content: 'one', sessionId: 'fork' }]);
      expect((await store.loadToolCalls('fork')).map((call) => [call.toolCallId, call.status, call.result])).toEqual([['c1', 'completed', { ok: 1 }]]);
      expect(await store.settings.get('fork')).toEqual({ model: 'openai:gpt', effort: 'high' });
      await store.appendMessages('fork', [{ role: 'user', content: 'fork only' }]);
      expect((await store.loadMessages('src')).map((message) => message.content)).toEqual(['one', 'two']);
      await expect(store.forkSession('nope', { sessionId: 'x', cwd: '/p' }, store, {})).rejects.toMatchObject({ code: 'session_not_found' });
    });

    it('folds a draft left mid-reply into the history once; the messages that end a step drop it', async () => {
      const store = await open((await fresh()).spec);
      await store.createSession({ sessionId: 's', cwd: '/p' });
      await store.appendEvents('s', [{ type: 'text-delta', text: 'Hel' }], { text: 'Hel', reasoning: '' });
      await store.appendEvents('s', [{ type: 'text-delta', text: 'lo' }], { text: 'lo', reasoning: 'hm' });
      const folded = await recoverInterruptedReply(store, 's');
      expect(folded?.content).toEqual([{ type: 'reasoning', text: 'hm' }, { type: 'text', text: `Hello\n\n${INTERRUPTED_MARK}` }]);
      expect(await recoverInterruptedReply(store, 's')).toBeUndefined();
      expect((await store.loadEvents('s')).map((event) => event.text)).toEqual(['Hel', 'lo', `\n\n${INTERRUPTED_MARK}`]);
      await store.appendEvents('s', [{ type: 'text-delta', text: 'Done' }], { text: 'Done', reasoning: '' });
      await store.appendMessages('s', [{ role: 'assistant', content: 'Done' }]);
      expect(await recoverInterruptedReply(store, 's')).toBeUndefined();
    });

    it('gives concurrent appenders from two connections one gapless order, each batch whole', async () => {
      const { spec } = await fresh();
      const [first, second] = [await open(spec), await open(spec)];
      await first.createSession({ sessionId: 's', cwd: '/p' });
      const batch = (writer: string, n: number) => [{ type: 'notice', text: `${writer}${n}a` }, { type: 'notice', text: `${writer}${n}b` }];
      await Promise.all([
        ...Array.from({ length: 20 }, (_, n) => first.appendEvents('s', batch('x', n))),
        ...Array.from({ length: 20 }, (_, n) => second.appendEvents('s', batch('y', n))),
      ]);
      const texts = (await first.loadEvents('s')).map((event) => String(event.text));
      expect(texts).toHaveLength(80);
      for (let i = 0; i < texts.length; i += 2) expect(texts[i + 1]).toBe(texts[i]!.replace(/a$/, 'b'));
    });

    it('leases: a live holder in another process is refused by name; once it stops renewing it is taken over, and its late write is fenced out', async () => {
      const { spec } = await fresh();
      const store = await open(spec);
      await store.createSession({ sessionId: 's', cwd: '/p' });
      const holder = startHolder(spec, 's', children);
      expect(await holder.next()).toBe('held');
      expect(await store.leases.acquire('s')).toMatchObject({ pid: holder.child.pid });
      // Frozen: alive (its pid exists) but renewing no more, as a suspended replica.
      holder.child.kill('SIGSTOP');
      let conflict: unknown = 'pending';
      await waitForAsync(async () => (conflict = await store.leases.acquire('s')) === undefined, 20_000, 'the stale lease to be taken over');
      expect(conflict).toBeUndefined();
      expect(await store.leases.holds('s')).toBe(true);
      holder.child.kill('SIGCONT');
      holder.child.stdin!.write('write\n');
      expect(await holder.next()).toBe('session_in_use');
      // This process's writes go on; the frozen holder's did not land.
      await store.appendEvents('s', [{ type: 'notice', text: 'from the new holder' }]);
      expect((await store.loadEvents('s')).map((event) => event.text)).toEqual(['from the new holder']);
    });

    it('heldByAnother: true only while another live process holds the lease (what A2A restart recovery asks), never for its own', async () => {
      const { spec } = await fresh();
      const store = await open(spec);
      await store.createSession({ sessionId: 'mine', cwd: '/p' });
      await store.createSession({ sessionId: 'theirs', cwd: '/p' });
      expect(await store.leases.heldByAnother('theirs')).toBe(false);
      await store.leases.acquire('mine');
      expect(await store.leases.heldByAnother('mine')).toBe(false);
      const holder = startHolder(spec, 'theirs', children);
      expect(await holder.next()).toBe('held');
      expect(await store.leases.heldByAnother('theirs')).toBe(true);
      // A killed holder (its pid gone on this host) holds nothing, at once.
      holder.child.kill('SIGKILL');
      await waitForAsync(async () => !(await store.leases.heldByAnother('theirs')), 10_000, 'the killed holder to count as gone');
      expect(await store.leases.acquire('theirs')).toBeUndefined();
    });

    it('leases: a process that let its lease go cannot write while another holds the session, and can once nobody does', async () => {
      const { spec } = await fresh();
      const store = await open(spec);
      await store.createSession({ sessionId: 's', cwd: '/p' });
      const holder = startHolder(spec, 's', children);
      expect(await holder.next()).toBe('held');
      holder.child.stdin!.write('release\n');
      expect(await holder.next()).toBe('released');
      expect(await store.leases.acquire('s')).toBeUndefined();
      // A late write of the process that closed the session (a turn it cancelled, finishing) would interleave with ours.
      holder.child.stdin!.write('write\n');
      expect(await holder.next()).toBe('session_in_use');
      await store.leases.release('s');
      holder.child.stdin!.write('write\n');
      expect(await holder.next()).toBe('wrote');
      expect((await store.loadEvents('s')).map((event) => event.text)).toEqual(['from the frozen holder']);
    });
  });
}

/** Polls an async condition (the store is async) until it holds. */

function startHolder(spec: string, sessionId: string, children: ChildProcess[]) {
  const jitiCli = resolve(import.meta.dirname, '../../node_modules/jiti/lib/jiti-cli.mjs');
  const fixture = resolve(import.meta.dirname, '../fixtures/storage/lease-holder.ts');
  const child = spawn(process.execPath, [jitiCli, fixture, spec, sessionId], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    partial += chunk;
    for (let at = partial.indexOf('\n'); at >= 0; at = partial.indexOf('\n')) {
      const line = partial.slice(0, at);
      partial = partial.slice(at + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const next = (): Promise<string> =>
    lines.length > 0
      ? Promise.resolve(lines.shift()!)
      : new Promise((done, fail) => {
          waiters.push(done);
          child.once('exit', (code) => fail(new Error(`lease holder exited (${code}): ${stderr}`)));
        });
  return { child, next };
}
