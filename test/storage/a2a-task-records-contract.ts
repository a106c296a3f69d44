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

    it('a task stored in a final state keeps it and its body: a later save by any opener changes nothing and says so', async () => {
      // The race: the SDK appends a follow-up message to the task it loaded while `working` and
      // saves it outside the per-task lock; the turn's terminal save lands first. Also a late
      // "no longer running" failure over a completed task, and another replica's stale save.
      const target = await fresh();
      const first = await tracked(target.open);
      const other = await tracked(target.open);
      for (const final of ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']) {
        const id = `t-${final}`;
        const saved = [await first.saveTask(task(id, 'c', 'o', 'TASK_STATE_WORKING', 'started')), await first.saveTask(task(id, 'c', 'o', final, 'ended'))];
        const ended = (await first.loadTask(id, 'o'))!;
        const late = final === 'TASK_STATE_FAILED' ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_FAILED';
        saved.push(
          await first.saveTask(task(id, 'c', 'o', 'TASK_STATE_WORKING', 'started + follow-up')),
          await other.saveTask(task(id, 'c2', 'o', 'TASK_STATE_WORKING', 'stale')),
          await other.saveTask(task(id, 'c', 'o', late, 'no longer running')),
          await first.saveTask(task(id, 'c', 'o', final, 'ended again')),
        );
        expect(await other.loadTask(id, 'o')).toEqual(ended);
        expect(saved).toEqual([true, true, false, false, false, false]);
      }
      expect(await first.tasksInStates(['TASK_STATE_WORKING', 'TASK_STATE_SUBMITTED'])).toEqual([]);
      // Only the owner's row is final: another principal's task of the same id is its own.
      expect(await other.saveTask(task('t-TASK_STATE_COMPLETED', 'c', 'bob', 'TASK_STATE_WORKING', 'bob'))).toBe(true);
      expect(await first.saveTask(task('live', 'c', 'o', 'TASK_STATE_INPUT_REQUIRED'))).toBe(true);
      expect(await other.saveTask(task('live', 'c', 'o', 'TASK_STATE_WORKING', 'answered'))).toBe(true);
      expect((await first.loadTask('live', 'o'))?.json).toBe('answered');
    });

    it('a shared store does not announce a save that changed nothing', async () => {
      const target = await fresh();
      const watcher = await tracked(target.open);
      const writer = await tracked(target.open);
      if (!watcher.shared) return expect(watcher.watchTask).toBeUndefined();
      let told = 0;
      const stop = watcher.watchTask!('f', () => told++);
      await waitFor(() => told >= 1, 10_000, 'the feed to listen');
      await writer.saveTask(task('f', 'c', 'o', 'TASK_STATE_COMPLETED'));
      await waitFor(() => told === 2, 10_000, 'the final save to be announced');
      await writer.saveTask(task('f', 'c', 'o', 'TASK_STATE_WORKING'));
      await writer.saveTask(task('f-marker', 'c', 'o', 'TASK_STATE_WORKING'));
      // The marker's notice follows on the same channel: had the refused save been announced, it would be heard by now.
      let marker = 0;
      const stopMarker = watcher.watchTask!('f-marker', () => marker++);
      await writer.saveTask(task('f-marker', 'c', 'o', 'TASK_STATE_WORKING', 'again'));
      await waitFor(() => marker >= 2, 10_000, 'the marker save to be announced');
      stopMarker();
      stop();
      expect(told).toBe(2);
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
