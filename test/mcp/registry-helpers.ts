// Shared set-up of registry tests: a real hybrid index in a temp SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHybridIndex, type HybridIndex } from '../../src/retrieval/hybrid-index.js';
import type { SearchIndex } from '../../src/retrieval/search-index.js';
import type { Embedder } from '../../src/model/embedder.js';

export function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-mcp-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function openTestIndex(dir: string, embedder?: Embedder): Promise<HybridIndex> {
  return openHybridIndex({ path: join(dir, 'index.db'), embedder });
}

/** Records which namespaces were synced, around a real index. */
export function recordingIndex(inner: SearchIndex): SearchIndex & { synced: string[] } {
  const synced: string[] = [];
  return {
    synced,
    sync: (namespace, documents) => {
      synced.push(namespace);
      return inner.sync(namespace, documents);
    },
    upsert: (documents) => inner.upsert(documents),
    remove: (ids) => inner.remove(ids),
    removeNamespace: (namespace) => inner.removeNamespace(namespace),
    search: (query, options) => inner.search(query, options),
    get: (id) => inner.get(id),
    close: () => inner.close(),
  };
}
