import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Changes arriving within this window are one change (an editor's save is several events). */
const SETTLE_MS = 150;

/**
 * Calls `onChange` (debounced) when anything under the skill roots changes: a SKILL.md added,
 * edited or removed. A root that does not exist yet is watched through its parent folder, so
 * creating `.plaited/skills` later is seen too. Returns a function that stops watching.
 */
export function watchSkillRoots(roots: readonly string[], onChange: () => void): () => void {
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | undefined;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, SETTLE_MS);
    timer.unref();
  };
  for (const root of new Set(roots)) {
    try {
      if (existsSync(root)) {
        watchers.push(watch(root, { recursive: true, persistent: false }, changed));
      } else if (existsSync(dirname(root))) {
        const name = basename(root);
        watchers.push(watch(dirname(root), { persistent: false }, (_event, file) => file === name && changed()));
      }
    } catch {
      // Watching is a convenience (inotify limits, odd file systems): skills still load on the next session.
    }
  }
  for (const watcher of watchers) watcher.on('error', () => watcher.close());
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
