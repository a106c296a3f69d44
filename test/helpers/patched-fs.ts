import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

type Patchable = Pick<typeof fs, 'existsSync' | 'watch'>;

/**
 * Runs `run` with some of `node:fs`'s functions replaced, ESM named imports included (through
 * `syncBuiltinESMExports`), and puts them back before returning: for what a test cannot make happen
 * on cue, such as a watch the system refuses or another process's `mkdir` landing mid-call.
 * Synchronous, so nothing else in the worker runs while fs is patched.
 */
export function withPatchedFs<T>(patch: Partial<Patchable>, run: () => T): T {
  const saved: Patchable = { existsSync: fs.existsSync, watch: fs.watch };
  Object.assign(fs, patch);
  syncBuiltinESMExports();
  try {
    return run();
  } finally {
    Object.assign(fs, saved);
    syncBuiltinESMExports();
  }
}

/** An `fs.watch` that fails as Linux does at its inotify limit. */
export const watchAtTheLimit = (() => {
  throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached, watch'), { code: 'ENOSPC' });
}) as typeof fs.watch;
