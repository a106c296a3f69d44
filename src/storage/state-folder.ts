import { chmodSync, existsSync, renameSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { errorMessage } from '../errors/error-message.js';
import { StorageError } from './storage-error.js';
import { ensureFolder } from './ensure-folder.js';

/**
 * Where the agent keeps its own state in a project: `.plaited/state/` (the
 * session store, the hybrid index, their SQLite companions). One folder the
 * tools never reach and a sandbox can hide with one mount, whatever files
 * SQLite adds beside a database later (see tools/agent-state-path.ts).
 */
export const STATE_FOLDER_NAME = 'state';

/** `<project>/.plaited/state`. */
export function stateFolder(projectDir: string): string {
  return join(resolve(projectDir), '.plaited', STATE_FOLDER_NAME);
}

/** The files older versions kept directly in `.plaited/`, with their companions. */
const LEGACY_FILES = ['state.db', 'index.db'].flatMap((name) => ['', '-wal', '-shm', '-journal'].map((suffix) => `${name}${suffix}`));

/**
 * Creates the state folder (owner only: on a shared host no other user reads
 * the transcripts) and moves the databases an older version left in
 * `.plaited/` into it, once: a file already in the new place is never overwritten.
 * A database moves together with its `-wal`/`-shm`, so no committed write is lost.
 */
export function ensureStateFolder(projectDir: string): string {
  const folder = stateFolder(projectDir);
  const fresh = !existsSync(folder);
  try {
    ensureFolder(folder, 0o700);
  } catch (error) {
    if (occupied(folder)) {
      throw new StorageError(
        'open_failed',
        `${folder}, where plaited-agent keeps this project's sessions, is a file, not a folder: move it aside (mv "${folder}" "${folder}.moved") and start again; plaited-agent leaves it as it is`,
        { path: folder, cause: error },
      );
    }
    throw new StorageError(
      'open_failed',
      `cannot create the state folder ${folder} (${errorMessage(error)}), where plaited-agent keeps this project's sessions: make ${join(resolve(projectDir), '.plaited')} a folder you can write, or run plaited-agent in a project you can write`,
      { path: folder, cause: error },
    );
  }
  if (fresh) chmodSync(folder, 0o700);
  const legacy = join(resolve(projectDir), '.plaited');
  for (const name of LEGACY_FILES) {
    const from = join(legacy, name);
    const to = join(folder, name);
    if (existsSync(from) && !existsSync(to)) renameSync(from, to);
  }
  return folder;
}

/** Something other than a folder is at `path` itself (not merely in the way above it). */
function occupied(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}
