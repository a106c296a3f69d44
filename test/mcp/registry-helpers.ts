// Shared set-up of registry tests: a real hybrid index in a temp SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { McpRegistry } from '../../src/mcp/mcp-registry.js';
import { openHybridIndex, type HybridIndex } from '../../src/retrieval/hybrid-index.js';
import type { SearchIndex } from '../../src/retrieval/search-index.js';
import type { Embedder } from '../../src/model/embedder.js';
import { createTestEmbedder } from '../retrieval/test-embedder.js';

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

/**
 * A registry over a real hybrid index (temp SQLite file) and the shared GloVe embedder for one
 * test file: `addServers` runs once before its tests, and everything is closed after them.
 */
export function discoveryRegistry(addServers: (registry: McpRegistry, dir: string) => Promise<void>, timeoutMs = 180_000): { readonly registry: McpRegistry } {
  let opened: { registry: McpRegistry; index: HybridIndex; embedder: Embedder; cleanup(): void } | undefined;
  beforeAll(async () => {
    const temp = tempDir();
    const embedder = createTestEmbedder();
    const index = await openTestIndex(temp.dir, embedder);
    const registry = new McpRegistry({ index });
    opened = { registry, index, embedder, cleanup: temp.cleanup };
    await addServers(registry, temp.dir);
  }, timeoutMs);
  afterAll(async () => {
    await opened?.registry.close();
    opened?.index.close();
    await opened?.embedder.close();
    opened?.cleanup();
  });
  return {
    get registry(): McpRegistry {
      if (!opened) throw new Error('the registry opens in beforeAll');
      return opened.registry;
    },
  };
}
