import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/model/embedder.js';
import { openHybridIndex, type HybridIndex } from '../../src/retrieval/hybrid-index.js';
import { RetrievalError } from '../../src/retrieval/retrieval-error.js';
import { openSqliteDatabase } from '../../src/storage/sqlite/open-sqlite-database.js';
import type { IndexDocument } from '../../src/retrieval/search-index.js';
import { byNamespace, fixtureCatalog } from './fixture-catalog.js';
import { countingEmbedder, createTestEmbedder } from './test-embedder.js';

let embedder: Embedder;
let dir: string;

beforeAll(() => {
  embedder = createTestEmbedder();
  dir = mkdtempSync(join(tmpdir(), 'plaited-hybrid-index-'));
});

afterAll(async () => {
  await embedder.close();
  rmSync(dir, { recursive: true, force: true });
});

async function syncAll(index: HybridIndex, documents: readonly IndexDocument[]): Promise<void> {
  for (const [namespace, group] of byNamespace(documents)) await index.sync(namespace, group);
}

const ids = (hits: { id: string }[]) => hits.map((hit) => hit.id);

describe('sync', () => {
  it('reports added, updated, removed and unchanged documents', async () => {
    const index = await openHybridIndex({ path: ':memory:', embedder });
    const fs = fixtureCatalog().filter((document) => document.namespace === 'fs');
    expect(await index.sync('fs', fs)).toEqual({ added: 3, updated: 0, removed: 0, unchanged: 0 });
    const changed = fs.slice(1).map((document, i) =>
      i === 0 ? { ...document, fields: { ...document.fields, description: 'Write text into a file.' } } : document,
    );
    expect(await index.sync('fs', changed)).toEqual({ added: 0, updated: 1, removed: 1, unchanged: 1 });
    expect(index.get('tool:mcp__fs__read_file')).toBeUndefined();
    expect(index.get('tool:mcp__fs__write_file')?.fields.description).toBe('Write text into a file.');
    expect(index.count('fs')).toBe(2);
    index.close();
  });

  it('re-syncs an unchanged catalog without a single embedding call', async () => {
    const counting = countingEmbedder(embedder);
    const index = await openHybridIndex({ path: ':memory:', embedder: counting });
    const catalog = fixtureCatalog();
    await syncAll(index, catalog);
    expect(counting.texts.length).toBe(catalog.length);
    const before = counting.calls;
    for (const [namespace, group] of byNamespace(catalog)) {
      const report = await index.sync(namespace, group.map((document) => structuredClone(document)));
      expect(report).toEqual({ added: 0, updated: 0, removed: 0, unchanged: group.length });
    }
    expect(counting.calls).toBe(before);
    index.close();
  });

  it('embeds only the documents whose text changed', async () => {
    const counting = countingEmbedder(embedder);
    const index = await openHybridIndex({ path: ':memory:', embedder: counting });
    const weather = fixtureCatalog().filter((document) => document.namespace === 'weather');
    await index.sync('weather', weather);
    counting.texts.length = 0;
    const edited = [{ ...weather[0], fields: { ...weather[0].fields, description: 'Seven-day forecast with snow.' } }, weather[1]];
    await index.sync('weather', edited);
    expect(counting.texts).toHaveLength(1);
    expect(counting.texts[0]).toContain('snow');
    // A payload-only change rewrites the document but reuses its vector.
    counting.texts.length = 0;
    const report = await index.sync('weather', [{ ...edited[0], payload: { annotations: { readOnlyHint: true } } }, edited[1]]);
    expect(report.updated).toBe(1);
    expect(counting.texts).toHaveLength(0);
    expect(index.get(edited[0].id)?.payload).toEqual({ annotations: { readOnlyHint: true } });
    index.close();
  });

  it('upsert and remove touch only the documents named', async () => {
    const index = await openHybridIndex({ path: ':memory:', embedder });
    await syncAll(index, fixtureCatalog());
    const total = index.count();
    const extra: IndexDocument = { id: 'tool:mcp__fs__move_file', kind: 'tool', namespace: 'fs', fields: { name: 'move_file', description: 'Move or rename a file.' } };
    expect(await index.upsert([extra])).toEqual({ added: 1, updated: 0, removed: 0, unchanged: 0 });
    expect(index.count()).toBe(total + 1);
    expect(ids(await index.search('rename a file', { limit: 1 }))).toEqual([extra.id]);
    index.remove([extra.id, 'tool:does-not-exist']);
    expect(index.count()).toBe(total);
    expect(ids(await index.search('rename a file', { limit: 3 }))).not.toContain(extra.id);
    index.removeNamespace('github');
    expect(index.count('github')).toBe(0);
    expect(index.count()).toBe(total - 4);
    index.close();
  });

  it('a namespace removed while its sync is embedding stays removed', async () => {
    const index = await openHybridIndex({ path: ':memory:', embedder });
    const github = fixtureCatalog().filter((document) => document.namespace === 'github');
    const pending = index.sync('github', github);
    index.removeNamespace('github');
    expect(await pending).toEqual({ added: 0, updated: 0, removed: 0, unchanged: 0 });
    expect(index.count('github')).toBe(0);
    expect(await index.sync('github', github)).toMatchObject({ added: github.length });
    index.close();
  });

  it('rejects a document without id or name, naming it', async () => {
    const index = await openHybridIndex({ path: ':memory:' });
    const bad = { id: '', kind: 'tool', namespace: 'x', fields: { name: 'x' } } satisfies IndexDocument;
    await expect(index.sync('x', [bad])).rejects.toMatchObject({ code: 'INVALID_DOCUMENT' });
    index.close();
  });
});

describe('search', () => {
  let index: HybridIndex;
  beforeAll(async () => {
    index = await openHybridIndex({ path: ':memory:', embedder });
    await syncAll(index, fixtureCatalog());
  });
  afterAll(() => index.close());

  it('finds the right tool in every mode', async () => {
    for (const mode of ['bm25', 'dense', 'hybrid'] as const) {
      expect(ids(await index.search('what will the weather be tomorrow, rain or sun?', { mode, limit: 1 }))).toEqual([
        'tool:mcp__weather__get_forecast',
      ]);
    }
    expect(ids(await index.search('please can you help me open an issue on the repository', { limit: 1 }))).toEqual([
      'tool:mcp__github__create_issue',
    ]);
  });

  it('splits camelCase, snake_case and kebab-case names on both sides', async () => {
    const names = await openHybridIndex({ path: ':memory:' });
    const doc = (id: string, name: string): IndexDocument => ({ id, kind: 'tool', namespace: 'n', fields: { name, description: 'Does it.' } });
    await names.sync('n', [doc('a', 'sendSlackMessage'), doc('b', 'post_text'), doc('c', 'archive-old-tickets'), doc('d', 'HTTPServerStatus')]);
    // The words exist only inside the identifiers.
    expect(ids(await names.search('slack message', { limit: 1 }))).toEqual(['a']);
    expect(ids(await names.search('send_slack_message', { limit: 1 }))).toEqual(['a']);
    expect(ids(await names.search('postText', { limit: 1 }))).toEqual(['b']);
    expect(ids(await names.search('archiveOldTickets', { limit: 1 }))).toEqual(['c']);
    expect(ids(await names.search('server status', { limit: 1 }))).toEqual(['d']);
    // The joined spelling of a name still finds it.
    expect(ids(await names.search('sendslackmessage', { limit: 1 }))).toEqual(['a']);
    names.close();
  });

  it('filters by kinds and namespaces in every mode', async () => {
    for (const mode of ['bm25', 'dense', 'hybrid'] as const) {
      const prompts = await index.search('review a pull request', { mode, kinds: ['prompt'] });
      expect(ids(prompts)).toEqual(['prompt:mcp__github__review_pr']);
      const fsOnly = await index.search('write the file and read it back', { mode, namespaces: ['fs'], limit: 10 });
      expect(fsOnly.length).toBeGreaterThan(0);
      expect(fsOnly.every((hit) => hit.document.namespace === 'fs')).toBe(true);
      const none = await index.search('write a file', { mode, kinds: ['memory'] });
      expect(none).toEqual([]);
    }
  });

  it('returns documents with their payload and finite, descending scores', async () => {
    const hits = await index.search('file', { limit: 5 });
    expect(hits.length).toBeGreaterThan(1);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
    expect(hits.every((hit) => Number.isFinite(hit.score) && hit.document.id === hit.id)).toBe(true);
  });

  it('survives requests with no content words and FTS5 syntax', async () => {
    // Only stop words: the embedder gives a zero vector; no NaN may leak into scores.
    const hits = await index.search('is it the one that I have?', { limit: 5 });
    expect(hits.every((hit) => Number.isFinite(hit.score))).toBe(true);
    await expect(index.search('"unbalanced AND (NEAR* c++ -- ', { limit: 3 })).resolves.toBeInstanceOf(Array);
    expect(await index.search('   ')).toEqual([]);
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(index.search('weather', { signal: controller.signal })).rejects.toBeDefined();
  });
});

describe('opening', () => {
  it('does not load the embedding model until something needs a vector', async () => {
    let dimensionCalls = 0;
    const counting = countingEmbedder(embedder);
    const lazy = { ...counting, modelId: counting.modelId, embed: counting.embed, dimensions: () => (dimensionCalls++, counting.dimensions()) };
    const path = join(dir, 'lazy.db');
    const writer = await openHybridIndex({ path, embedder });
    await syncAll(writer, fixtureCatalog());
    writer.close();
    const index = await openHybridIndex({ path, embedder: lazy });
    expect(ids(await index.search('forecast', { mode: 'bm25', limit: 1 }))).toEqual(['tool:mcp__weather__get_forecast']);
    for (const [namespace, group] of byNamespace(fixtureCatalog())) await index.sync(namespace, group);
    expect(dimensionCalls).toBe(0);
    expect(counting.calls).toBe(0);
    index.close();
  });
});

describe('without an embedder', () => {
  it('is a working BM25 index; dense mode fails with NO_EMBEDDER', async () => {
    const index = await openHybridIndex({ path: ':memory:' });
    expect(index.hasEmbedder).toBe(false);
    await syncAll(index, fixtureCatalog());
    expect(ids(await index.search('rain forecast for tomorrow', { limit: 1 }))).toEqual(['tool:mcp__weather__get_forecast']);
    expect(ids(await index.search('extract text from a PDF', { kinds: ['skill'] }))).toEqual(['skill:pdf-tools']);
    const error = await index.search('rain', { mode: 'dense' }).catch((caught: unknown) => caught);
    expect(RetrievalError.isInstance(error) && error.code).toBe('NO_EMBEDDER');
    index.close();
  });
});

describe('with an embedder that does not load', () => {
  it('tries it only when a vector is needed, then works as BM25 alone and says why once', async () => {
    let loads = 0;
    const causes: unknown[] = [];
    const unloadable = {
      modelId: 'hf:offline/model:Q8_0',
      dimensions: async () => {
        loads += 1;
        throw new Error('offline: the model is not cached\nsecond line');
      },
      embed: async () => {
        throw new Error('never called once the load failed');
      },
    };
    const index = await openHybridIndex({ path: ':memory:', embedder: unloadable, onEmbedderUnavailable: (cause) => causes.push(cause) });
    // Nothing to index, nothing to embed: the embedder is not even tried.
    expect(await index.sync('fs', [])).toEqual({ added: 0, updated: 0, removed: 0, unchanged: 0 });
    expect(loads).toBe(0);
    expect(index.hasEmbedder).toBe(true);
    await syncAll(index, fixtureCatalog());
    expect(loads).toBe(1);
    expect(index.hasEmbedder).toBe(false);
    expect(ids(await index.search('rain forecast for tomorrow', { limit: 1 }))).toEqual(['tool:mcp__weather__get_forecast']);
    expect(ids(await index.search('extract text from a PDF', { kinds: ['skill'] }))).toEqual(['skill:pdf-tools']);
    const error = await index.search('rain', { mode: 'dense' }).catch((caught: unknown) => caught);
    expect(RetrievalError.isInstance(error) && error.code).toBe('NO_EMBEDDER');
    expect(loads).toBe(1);
    expect(causes.map((cause) => (cause as Error).message)).toEqual(['offline: the model is not cached\nsecond line']);
    index.close();
  });

  it('a first search is what tries it when nothing was indexed first', async () => {
    const causes: unknown[] = [];
    let loads = 0;
    const unloadable = {
      modelId: 'broken.gguf',
      dimensions: () => Promise.reject(new Error(`bad file (load ${++loads})`)),
      embed: () => Promise.reject(new Error('unused')),
    };
    const index = await openHybridIndex({ path: ':memory:', embedder: unloadable, onEmbedderUnavailable: (cause) => causes.push(cause) });
    expect(await index.search('rain forecast for tomorrow', { limit: 1 })).toEqual([]);
    expect(causes.map((cause) => (cause as Error).message)).toEqual(['bad file (load 1)']);
    await syncAll(index, fixtureCatalog());
    expect(ids(await index.search('rain forecast for tomorrow', { limit: 1 }))).toEqual(['tool:mcp__weather__get_forecast']);
    expect(loads).toBe(1);
    index.close();
  });
});

describe('persistence', () => {
  it('reopens a file with its documents and vectors, and re-syncs it for free', async () => {
    const path = join(dir, 'index.db');
    const first = await openHybridIndex({ path, embedder });
    await syncAll(first, fixtureCatalog());
    first.close();
    await expect(first.search('x')).rejects.toMatchObject({ code: 'INDEX_CLOSED' });

    const counting = countingEmbedder(embedder);
    const second = await openHybridIndex({ path, embedder: counting });
    expect(second.count()).toBe(fixtureCatalog().length);
    const dense = await second.search('temperature and wind in the coming days', { mode: 'dense', limit: 1 });
    expect(ids(dense)).toEqual(['tool:mcp__weather__get_forecast']);
    const queryCalls = counting.calls;
    for (const [namespace, group] of byNamespace(fixtureCatalog())) {
      expect((await second.sync(namespace, group)).unchanged).toBe(group.length);
    }
    expect(counting.calls).toBe(queryCalls);
    second.close();
  });

  it('sees documents another connection wrote to the same file', async () => {
    const path = join(dir, 'shared.db');
    const reader = await openHybridIndex({ path, embedder });
    expect(await reader.search('forecast', { mode: 'dense' })).toEqual([]);
    const writer = await openHybridIndex({ path, embedder });
    await syncAll(writer, fixtureCatalog());
    expect(ids(await reader.search('forecast', { mode: 'dense', limit: 1 }))).toEqual(['tool:mcp__weather__get_forecast']);
    writer.close();
    reader.close();
  });

  it('shares its file with other tables without touching them', async () => {
    const path = join(dir, 'shared-file.db');
    const other = openSqliteDatabase(path);
    other.exec("CREATE TABLE docs (id TEXT); INSERT INTO docs VALUES ('keep me'); CREATE TABLE meta (key TEXT)");
    other.close();
    const index = await openHybridIndex({ path, embedder });
    await syncAll(index, fixtureCatalog());
    index.close();
    const check = openSqliteDatabase(path);
    expect(check.prepare('SELECT id FROM docs').all()).toEqual([{ id: 'keep me' }]);
    check.close();
  });

  it('re-embeds everything when the embedder changes', async () => {
    const path = join(dir, 'model-change.db');
    const first = await openHybridIndex({ path, embedder });
    await syncAll(first, fixtureCatalog());
    first.close();
    const other = countingEmbedder(embedder);
    Object.defineProperty(other, 'modelId', { value: `${embedder.modelId}#other` });
    const second = await openHybridIndex({ path, embedder: other });
    for (const [namespace, group] of byNamespace(fixtureCatalog())) await second.sync(namespace, group);
    expect(other.texts.length).toBe(fixtureCatalog().length);
    second.close();
  });
});
