import { dirname, join } from 'node:path';
import type { SearchIndex } from '../retrieval/search-index.js';
import { ensureFolder } from '../storage/ensure-folder.js';

/**
 * The default home of episodes when no index is injected: `<project>/.plaited/episodes.db`,
 * a hybrid index of its own (BM25 without an embedder), opened once per project.
 */
export function episodeIndexOpener(): { open(cwd: string): Promise<SearchIndex>; closeAll(): void } {
  const open = new Map<string, Promise<SearchIndex>>();
  return {
    open(cwd) {
      const path = join(cwd, '.plaited', 'episodes.db');
      let index = open.get(path);
      if (!index) {
        index = (async () => {
          ensureFolder(dirname(path));
          const { openHybridIndex } = await import('../retrieval/hybrid-index.js');
          return openHybridIndex({ path });
        })();
        open.set(path, index);
        index.catch(() => open.delete(path));
      }
      return index;
    },
    closeAll() {
      for (const index of open.values()) void index.then((opened) => opened.close()).catch(() => undefined);
      open.clear();
    },
  };
}
