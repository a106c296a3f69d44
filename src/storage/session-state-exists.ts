import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sessionStatePath } from './session-state-path.js';

/**
 * Whether a project's SQLite sessions file exists yet: config `agent.stateDb` (resolved against
 * the project), else `.plaited/state/state.db`, or `.plaited/state.db` where an older version kept
 * it. Lets a reader (`sessions list`) answer "none" without opening a store, which would create it.
 */
export function sessionStateExists(projectDir: string, stateDb: string | undefined): boolean {
  if (stateDb === ':memory:') return false;
  if (existsSync(sessionStatePath(projectDir, stateDb))) return true;
  return stateDb === undefined && existsSync(join(resolve(projectDir), '.plaited', 'state.db'));
}
