import type { Agent } from '../agent/agent.js';
import { errorMessage } from '../errors/error-message.js';
import { StorageError } from '../storage/storage-error.js';
import type { Log } from './stderr-log.js';

/**
 * A PostgreSQL store is opened at start, so an operator hears of it then, not at the first
 * session or `/readyz` probe. A cause no retry fixes (a refused user or password, a user who
 * may not create the schema) stops the start: `false`, said through `fatal`. Any other (the
 * server refuses connections, the database is not created yet) is logged at `error` and the agent
 * goes on: `/readyz` answers 503 and each session request tries the store again.
 */
export async function checkStoreAtStart(agent: Agent, log: Log, fatal: (message: string) => void): Promise<boolean> {
  try {
    await agent.ready?.();
    return true;
  } catch (error) {
    if (StorageError.isInstance(error) && error.permanent) {
      fatal(error.message);
      return false;
    }
    log('error', `${errorMessage(error)} (going on: each session request tries the store again, and a network face's /readyz answers 503 until it answers)`);
    return true;
  }
}
