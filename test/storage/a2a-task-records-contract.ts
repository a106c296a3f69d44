import { afterEach, describe, expect, it } from 'vitest';
import type { A2aTaskRecords } from '../../src/storage/a2a-task-records.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * The contract every driver's A2A task records keep (SQLite file, PostgreSQL database), run
 * from sqlite-store-contract.test.ts and postgres-store-contract.test.ts. `open` opens the same
 * store again on each call (a reopen of the file, another replica on the database).
 */
export function describeA2aTaskRecordsContract(driver: string, fresh: () => Promise<{ open: () => Promise<A2aTaskRecords> }>): void {
  const opened: A2aTaskRecords[] = [];
  afterEach(async () => {
    for (const records of opened.splice(0)) await records.close();
  });
  const tracked = async (open: () => Promise<A2aTaskRecords>) => {
    const records = await open();
    opened.push(records);
    return records;
  };
  const task = (taskId: string, contextId: string, owner: string, state: string, json = taskId) => ({ taskId, contextId, owner, state, json });

  describe(`A2A task records contract: ${driver}`, () => {
    it('keeps tasks per owner: another principal neither loads nor lists them', async () => {
      const records = await tracked((await fresh()).open);
      await records.saveTask(task('t1', 'c1', 'alice', 'TASK_STATE_WORKING', '{"id":"t1"}'));
      expect((await records.loadTask('t1', 'alice'))?.json).toBe('{"id":"t1"}');
      expect(await records.loadTask('t1', 'bob')).toBeUndefined();
      expect(await records.listTasks({ owner: 'bob', limit: 10, offset: 0 })).toEqual({ tasks: [], total: 0 });
    });

    it('overwrites a task on save and lists newest first, filtered by context, state and time, paged', async () => {
      const records = await tracked((await fresh()).open);
      for (const [taskId, contextId] of [['a', 'c1'], ['b', 'c2'], ['c', 'c1']] as const) {
        await records.saveTask(task(taskId, contextId, 'o', 'TASK_STATE_WORKING'));
        await new Promise((tick) => setTimeout(tick, 5)); // distinct update times (ms)
      }
      const before = (await records.loadTask('c', 'o'))!.updatedAt;
      await records.saveTask(task('a', 'c1', 'o', 'TASK_STATE_COMPLETED', 'a2'));
      expect((await records.listTasks({ owner: 'o', limit: 10, offset: 0 })).tasks.map((row) => row.json)).toEqual(['a2', 'c', 'b']);
      expect(await records.listTasks({ owner: 'o', contextId: 'c1', limit: 1, offset: 1 })).toMatchObject({ total: 2, tasks: [{ taskId: 'c' }] });
      expect((await records.listTasks({ owner: 'o', state: 'TASK_STATE_COMPLETED', limit: 10, offset: 0 })).tasks.map((row) => row.taskId)).toEqual(['a']);
      expect((await records.listTasks({ owner: 'o', updatedAfter: before, limit: 10, offset: 0 })).tasks.map((row) => row.taskId)).toEqual(['a']);
      expect((await records.tasksInStates(['TASK_STATE_WORKING'])).map((row) => row.taskId).sort()).toEqual(['b', 'c']);
      expect(await records.tasksInStates([])).toEqual([]);
    });

    it('binds a context to a session per owner; tasks and bindings are seen by the next opener', async () => {
      const target = await fresh();
      const first = await tracked(target.open);
      await first.bindContext('ctx', 'alice', 'session-1');
      await first.saveTask(task('t', 'ctx', 'alice', 'TASK_STATE_COMPLETED', '{}'));
      const second = await tracked(target.open);
      expect(await second.contextSession('ctx', 'alice')).toMatchObject({ contextId: 'ctx', owner: 'alice', sessionId: 'session-1' });
      expect(await second.contextSession('ctx', 'bob')).toBeUndefined();
      expect((await second.loadTask('t', 'alice'))?.state).toBe('TASK_STATE_COMPLETED');
      await second.bindContext('ctx', 'alice', 'session-2');
      expect((await first.contextSession('ctx', 'alice'))?.sessionId).toBe('session-2');
    });

    it('a shared store tells a watcher of every save of its task by another opener; a file is not shared', async () => {
      const target = await fresh();
      const watcher = await tracked(target.open);
      const writer = await tracked(target.open);
      if (!watcher.shared) {
        expect(watcher.watchTask).toBeUndefined();
        return;
      }
      let told = 0;
      const stop = watcher.watchTask!('w', () => told++);
      // Told once when the feed starts listening; then once per save of `w`, not of other tasks.
      await waitFor(() => told >= 1, 10_000, 'the feed to listen');
      const base = told;
      await writer.saveTask(task('other', 'c', 'o', 'TASK_STATE_WORKING'));
      await writer.saveTask(task('w', 'c', 'o', 'TASK_STATE_WORKING'));
      await waitFor(() => told === base + 1, 10_000, 'the save to be announced');
      stop();
      await writer.saveTask(task('w', 'c', 'o', 'TASK_STATE_COMPLETED'));
      await writer.saveTask(task('w2', 'c', 'o', 'TASK_STATE_COMPLETED'));
      await writer.loadTask('w2', 'o');
      expect(told).toBe(base + 1);
    });
  });
}
