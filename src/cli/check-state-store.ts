import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../errors/error-message.js';
import { SESSION_SCHEMA_VERSION } from '../storage/session-schema.js';
import { damagedStoreFix, isDamagedStoreError } from '../storage/store-open-error.js';
import { openSqliteDatabase } from '../storage/sqlite/open-sqlite-database.js';
import { ensureStateFolder, stateFolder } from '../storage/state-folder.js';
import { sessionStatePath } from '../storage/session-state-path.js';
import type { DoctorCheck } from './doctor-check.js';

/** The project's state folder is writable and its session file (if any) has a schema this version reads. */
export function checkStateStore(cwd: string, stateDb: string | undefined): DoctorCheck {
  const name = 'state store';
  if (stateDb === ':memory:') return { name, ok: true, detail: 'agent.stateDb is :memory: (nothing is kept between runs)' };
  let folder: string;
  try {
    folder = ensureStateFolder(cwd);
    const probe = join(folder, `.doctor-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    // The folder is needed whatever agent.stateDb says (started commands are recorded there): no other fix.
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    return { name, ok: false, detail: `${stateFolder(cwd)} is not writable (${errorMessage(cause)})`, fix: 'make .plaited/state a folder this user can write (and .plaited too)' };
  }
  const file = sessionStatePath(cwd, stateDb);
  if (!existsSync(file)) return { name, ok: true, detail: `${folder} writable; no sessions yet (schema ${SESSION_SCHEMA_VERSION} on first use)` };
  try {
    const db = openSqliteDatabase(file);
    try {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SESSION_SCHEMA_VERSION) {
        return { name, ok: false, detail: `${file} has schema ${version}, newer than this plaited-agent's ${SESSION_SCHEMA_VERSION}`, fix: 'upgrade plaited-agent, or set agent.stateDb to another file' };
      }
      const note = version < SESSION_SCHEMA_VERSION ? `, migrated to ${SESSION_SCHEMA_VERSION} at the next start` : '';
      return { name, ok: true, detail: `${file} writable, schema ${version}${note}` };
    } finally {
      db.close();
    }
  } catch (error) {
    const fix = isDamagedStoreError(error) ? damagedStoreFix(file) : 'make the file and its folder readable and writable by this user, or set agent.stateDb to another file';
    return { name, ok: false, detail: `${file} cannot be opened (${errorMessage(error)})`, fix };
  }
}
