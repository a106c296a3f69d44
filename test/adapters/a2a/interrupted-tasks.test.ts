import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Task, TaskState, taskStateToJSON } from '@a2a-js/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedTasks, INTERRUPTED_TEXT } from '../../../src/adapters/a2a/interrupted-tasks.js';
import { StoredTaskStore } from '../../../src/adapters/a2a/stored-task-store.js';
import { agentMessage, textPart } from '../../../src/adapters/a2a/a2a-messages.js';
import { openSessionStores } from '../../../src/storage/open-session-stores.js';
import type { SessionStores } from '../../../src/storage/session-storage.js';
import { SqliteA2aTaskRecords } from '../../../src/storage/sqlite/sqlite-a2a-task-records.js';

/** Restart recovery against real leases: another process (the store suite's lease holder) holds one session. */
const children: ChildProcess[] = [];
const opened: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const close of opened.splice(0)) await close();
});

function holdLease(path: string, sessionId: string): Promise<ChildProcess> {
  const jitiCli = resolve(import.meta.dirname, '../../../node_modules/jiti/lib/jiti-cli.mjs');
  const fixture = resolve(import.meta.dirname, '../../fixtures/storage/lease-holder.ts');
  const child = spawn(process.execPath, [jitiCli, fixture, path, sessionId], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((held, fail) => {
    child.stdout!.once('data', (chunk: Buffer) => (chunk.toString().startsWith('held') ? held(child) : fail(new Error(chunk.toString()))));
    child.once('exit', (code) => fail(new Error(`the lease holder exited (${code})`)));
  });
}

function task(id: string, contextId: string, state: TaskState): Task {
  return Task.fromJSON({ id, contextId, status: { state: taskStateToJSON(state), message: agentMessage({ taskId: id, contextId }, [textPart('working on it')]) } });
}

async function setUp() {
  const path = join(mkdtempSync(join(tmpdir(), 'plaited-interrupted-')), 'state.db');
  const stores: SessionStores = await openSessionStores({ path, leases: { heartbeatMs: 100, staleMs: 1_000 } });
  opened.push(() => stores.closeAll());
  const sessions = stores.forProject('/work');
  const records = new SqliteA2aTaskRecords(path);
  opened.push(() => records.close());
  const taskStore = new StoredTaskStore(records);
  for (const [contextId, sessionId] of [['c-held', 's-held'], ['c-dead', 's-dead'], ['c-here', 's-here']] as const) {
    await sessions.createSession({ sessionId, cwd: '/work' });
    await records.bindContext(contextId, 'o', sessionId);
  }
  await taskStore.saveAs(task('t-held', 'c-held', TaskState.TASK_STATE_WORKING), 'o');
  await taskStore.saveAs(task('t-dead', 'c-dead', TaskState.TASK_STATE_INPUT_REQUIRED), 'o');
  await taskStore.saveAs(task('t-done', 'c-dead', TaskState.TASK_STATE_COMPLETED), 'o');
  await taskStore.saveAs(task('t-here', 'c-here', TaskState.TASK_STATE_WORKING), 'o');
  const recovery = new InterruptedTasks({ records, taskStore, leases: () => sessions.leases, runsHere: (taskId) => taskId === 't-here' });
  const state = async (taskId: string) => (await taskStore.loadAs(taskId, 'o'))!.status!.state;
  return { path, sessions, taskStore, recovery, state };
}

describe('InterruptedTasks (A2A restart recovery)', () => {
  it('fails only tasks whose session no live process holds; a task whose holder is killed ends at the next sweep', async () => {
    const { path, taskStore, recovery, state } = await setUp();
    const holder = await holdLease(path, 's-held');
    expect(await recovery.endDead()).toBe(1);
    expect(await state('t-dead')).toBe(TaskState.TASK_STATE_FAILED);
    const failed = await taskStore.loadAs('t-dead', 'o');
    expect(failed!.status!.message!.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : ''))).toEqual([INTERRUPTED_TEXT]);
    expect(await state('t-held')).toBe(TaskState.TASK_STATE_WORKING);
    expect(await state('t-here')).toBe(TaskState.TASK_STATE_WORKING);
    expect(await state('t-done')).toBe(TaskState.TASK_STATE_COMPLETED);

    holder.kill('SIGKILL');
    await new Promise((exited) => holder.once('exit', exited));
    expect(await recovery.endDead()).toBe(1);
    expect(await state('t-held')).toBe(TaskState.TASK_STATE_FAILED);
    expect(await state('t-here')).toBe(TaskState.TASK_STATE_WORKING);
  });

  it('on a takeover, ends the dead tasks of that conversation only', async () => {
    const { sessions, recovery, state } = await setUp();
    expect(await sessions.leases.acquire('s-dead')).toBeUndefined();
    expect(await recovery.endDead({ owner: 'o', contextId: 'c-dead' })).toBe(1);
    expect(await state('t-dead')).toBe(TaskState.TASK_STATE_FAILED);
    expect(await state('t-held')).toBe(TaskState.TASK_STATE_WORKING);
  });
});
