import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { A2aTaskStore } from '../../src/storage/a2a-task-store.js';
import { SessionStore } from '../../src/storage/session-store.js';

function file(): string {
  return join(mkdtempSync(join(tmpdir(), 'plaited-a2a-store-')), 'state.db');
}

describe('A2aTaskStore', () => {
  it('keeps tasks per owner: another principal cannot load or list them', () => {
    const store = new A2aTaskStore(':memory:');
    store.saveTask({ taskId: 't1', contextId: 'c1', owner: 'alice', state: 'TASK_STATE_WORKING', json: '{"id":"t1"}' });
    expect(store.loadTask('t1', 'alice')?.json).toBe('{"id":"t1"}');
    expect(store.loadTask('t1', 'bob')).toBeUndefined();
    expect(store.listTasks({ owner: 'bob', limit: 10, offset: 0 })).toEqual({ tasks: [], total: 0 });
    store.close();
  });

  it('overwrites a task on save and lists newest first, filtered and paged', () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const store = new A2aTaskStore(':memory:', { now: () => new Date((clock += 1000)) });
    for (const [taskId, contextId] of [['a', 'c1'], ['b', 'c2'], ['c', 'c1']] as const) {
      store.saveTask({ taskId, contextId, owner: 'o', state: 'TASK_STATE_WORKING', json: taskId });
    }
    store.saveTask({ taskId: 'a', contextId: 'c1', owner: 'o', state: 'TASK_STATE_COMPLETED', json: 'a2' });
    expect(store.listTasks({ owner: 'o', limit: 10, offset: 0 }).tasks.map((task) => task.json)).toEqual(['a2', 'c', 'b']);
    const page = store.listTasks({ owner: 'o', contextId: 'c1', limit: 1, offset: 1 });
    expect(page).toMatchObject({ total: 2, tasks: [{ taskId: 'c' }] });
    expect(store.listTasks({ owner: 'o', state: 'TASK_STATE_COMPLETED', limit: 10, offset: 0 }).tasks.map((task) => task.taskId)).toEqual(['a']);
    expect(store.tasksInStates(['TASK_STATE_WORKING']).map((task) => task.taskId).sort()).toEqual(['b', 'c']);
    store.close();
  });

  it('binds a context to a session, per owner, and both survive reopening the file', () => {
    const path = file();
    const first = new A2aTaskStore(path);
    first.bindContext('ctx', 'alice', 'session-1');
    first.saveTask({ taskId: 't', contextId: 'ctx', owner: 'alice', state: 'TASK_STATE_COMPLETED', json: '{}' });
    first.close();
    const second = new A2aTaskStore(path);
    expect(second.contextSession('ctx', 'alice')?.sessionId).toBe('session-1');
    expect(second.contextSession('ctx', 'bob')).toBeUndefined();
    expect(second.loadTask('t', 'alice')?.state).toBe('TASK_STATE_COMPLETED');
    second.close();
  });

  it('shares the state file with the session store without touching its schema version', () => {
    const path = file();
    new SessionStore(path).close();
    const userVersion = () => {
      const db = new Database(path, { readonly: true });
      try {
        return db.pragma('user_version', { simple: true });
      } finally {
        db.close();
      }
    };
    const before = userVersion();
    const tasks = new A2aTaskStore(path);
    tasks.bindContext('ctx', 'o', 's');
    tasks.close();
    expect(userVersion()).toBe(before);
    const sessions = new SessionStore(path);
    expect(sessions.journalMode()).toBe('wal');
    sessions.close();
  });
});
