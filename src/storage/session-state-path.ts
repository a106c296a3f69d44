import { join, resolve } from 'node:path';
import { stateFolder } from './state-folder.js';

/** A project's SQLite sessions file: config `agent.stateDb` resolved against the project, else `.plaited/state/state.db`. */
export function sessionStatePath(projectDir: string, stateDb: string | undefined): string {
  return stateDb !== undefined ? resolve(projectDir, stateDb) : join(stateFolder(projectDir), 'state.db');
}
