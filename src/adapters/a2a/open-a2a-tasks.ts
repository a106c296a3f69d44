import { join, resolve } from 'node:path';
import type { Agent } from '../../agent/agent.js';
import type { A2aTaskRecords } from '../../storage/a2a-task-records.js';
import type { SessionStorageLeases } from '../../storage/session-storage.js';
import { SqliteA2aTaskRecords } from '../../storage/sqlite/sqlite-a2a-task-records.js';
import { ensureStateFolder } from '../../storage/state-folder.js';
import { errorMessage } from '../../errors/error-message.js';
import { DeferredTaskRecords } from './deferred-task-records.js';
import { InterruptedTasks } from './interrupted-tasks.js';
import { StoredTaskStore } from './stored-task-store.js';

/** How often a replica on a shared store looks for tasks whose replica stopped. */
const SWEEP_MS = 3_000;

export interface A2aTasks {
  records: DeferredTaskRecords;
  taskStore: StoredTaskStore;
  interrupted: InterruptedTasks;
  close(): Promise<void>;
}

/**
 * Where the A2A tasks live, beside the sessions: the database the replicas share when the
 * agent's store is one (same pool: `SessionStores.a2aTasks`), else the project's SQLite file
 * (`stateDb`, default `.plaited/state/state.db`). Opened now when it can be, else on first use;
 * once open, tasks left running by a stopped process are ended, and on a shared store that
 * sweep repeats every {@link SWEEP_MS} for replicas that die while this one lives.
 */
export async function openA2aTasks(
  agent: Agent,
  options: { cwd: string; stateDb?: string; sweepMs?: number; runsHere(taskId: string): boolean; log?: (message: string) => void },
): Promise<A2aTasks> {
  const { cwd, log } = options;
  let leases: SessionStorageLeases | undefined;
  const open = async (): Promise<A2aTaskRecords> => {
    const stores = await agent.stores?.();
    leases = stores?.forProject(cwd).leases;
    return stores?.a2aTasks?.() ?? new SqliteA2aTaskRecords(options.stateDb ? resolve(cwd, options.stateDb) : join(ensureStateFolder(cwd), 'state.db'));
  };
  const records: DeferredTaskRecords = new DeferredTaskRecords(open, async (opened) => {
    const failed = await interrupted.endDead().catch((error: unknown) => {
      log?.(`A2A: ending tasks left running by a stopped process failed: ${errorMessage(error)}`);
      return 0;
    });
    if (failed > 0) log?.(`A2A: ${failed} task(s) left running by a stopped process marked failed`);
    if (opened.shared) interrupted.start(options.sweepMs ?? SWEEP_MS);
  });
  const taskStore = new StoredTaskStore(records);
  const interrupted = new InterruptedTasks({ records, taskStore, leases: () => leases, runsHere: options.runsHere, log });
  // Not fatal: the face listens, `/readyz` says 503, and the next use opens it.
  await records.ready().catch((error: unknown) => log?.(`A2A: the task store is not reachable yet (${errorMessage(error)}); retried on use`));
  return {
    records,
    taskStore,
    interrupted,
    close: async () => {
      await interrupted.stop();
      await records.close();
    },
  };
}
