import { existsSync, watch, type FSWatcher } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** Changes arriving within this window are one change (an editor's save is several events). */
const SETTLE_MS = 150;

/**
 * Calls `onChange` (debounced) when anything under the skill roots changes: a SKILL.md added,
 * edited or removed. A root that does not exist yet is watched through its nearest folder that
 * does (`.claude/skills` through the project when there is no `.claude`), and once it appears it
 * is watched itself, so `mkdir -p .claude/skills/x` and a SKILL.md written there a minute later
 * are both seen. Returns a function that stops watching. `onUnwatched` hears of a root that cannot
 * be watched (the system's watch limit reached, an odd file system), once per root: its skills
 * are then read again only when a session opens.
 */
export function watchSkillRoots(roots: readonly string[], onChange: () => void, onUnwatched?: (root: string, cause: string) => void): () => void {
  const told = new Set<string>();
  const unwatched = (root: string, cause: string) => {
    if (told.has(root)) return;
    told.add(root);
    onUnwatched?.(root, cause);
  };
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, SETTLE_MS);
    timer.unref();
  };
  const arm = (root: string): void => {
    if (stopped) return;
    watchers.get(root)?.close();
    watchers.delete(root);
    try {
      if (existsSync(root)) {
        const watcher = watch(root, { recursive: true, persistent: false }, () => {
          changed();
          // The root itself went (rm -rf .claude): watch for it to come back.
          if (!existsSync(root)) arm(root);
        });
        watchers.set(root, watcher);
      } else {
        let folder = dirname(root);
        while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
        // The one name below `folder` on the way to the root: only its appearance matters.
        const next = relative(folder, root).split(sep)[0];
        const watcher = watch(folder, { persistent: false }, (_event, file) => {
          if (file !== next) return;
          arm(root);
          changed();
        });
        watchers.set(root, watcher);
        // Made between the look above and this watch (`mkdir -p` runs on meanwhile), it sent no
        // event: look again now that the watch is in place, and go down a level if it is there.
        if (next !== undefined && existsSync(join(folder, next))) {
          arm(root);
          changed();
          return;
        }
      }
      const armed = watchers.get(root);
      armed?.on('error', (error) => {
        armed.close();
        unwatched(root, error.message);
      });
    } catch (error) {
      // Gone between the look and the watch (rm -rf .claude meanwhile): watch for it to come back.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return arm(root);
      unwatched(root, (error as Error).message);
    }
  };
  for (const root of new Set(roots)) arm(root);
  return () => {
    stopped = true;
    clearTimeout(timer);
    for (const watcher of watchers.values()) watcher.close();
  };
}
