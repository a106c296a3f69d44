import { realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { STATE_FOLDER_NAME, stateFolder } from '../storage/state-folder.js';

/**
 * The agent's own state in a project: `.plaited/state/` (the session store with
 * every principal's transcripts, the hybrid index and its caches, their SQLite
 * `-wal`/`-shm` companions). No tool reads or writes it: on the HTTP face one
 * principal's `grep` over the store's WAL would read another's conversation.
 * One folder, so one rule (and one sandbox mount) covers every file in it,
 * including companions SQLite creates later.
 */
export const AGENT_STATE_FOLDER = join('.plaited', STATE_FOLDER_NAME);

/** The state folder of the project at `root`. */
export function agentStateDir(root: string): string {
  return stateFolder(root);
}

/** `.plaited/state` anywhere in a path, and the files older versions kept beside it. */
const STATE_PATH = /(?:^|\/)\.plaited\/(?:state(?:\/|$)|(?:state|index)\.db(?:-wal|-shm|-journal)?$)/;

/** Whether an absolute path is (or is inside) an agent's state, as spelled or where its links lead. */
export async function isAgentStatePath(absolute: string): Promise<boolean> {
  if (STATE_PATH.test(absolute.split(sep).join('/'))) return true;
  const real = await realpath(absolute).catch(() => absolute);
  return STATE_PATH.test(real.split(sep).join('/'));
}

/** ripgrep globs that keep a search out of every agent state (appended last: later globs win). */
export const AGENT_STATE_RG_GLOBS = ['--glob=!**/.plaited/state/**', '--glob=!**/.plaited/state', '--glob=!**/.plaited/state.db*', '--glob=!**/.plaited/index.db*'];

/** Glob ignore patterns that keep a listing out of every agent state. */
export const AGENT_STATE_IGNORES = ['**/.plaited/state/**', '**/.plaited/state.db*', '**/.plaited/index.db*'];

/** What a tool says when asked for the agent's state. */
export function agentStateRefusal(input: string): string {
  return `"${input}" is the agent's own state (${AGENT_STATE_FOLDER}/: the sessions of every user of this agent); no tool reads, lists or writes it. Use session/list or session/load for your own sessions.`;
}
