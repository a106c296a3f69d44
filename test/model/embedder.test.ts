import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder, type Embedder } from '../../src/model/embedder.js';
import { cosineSimilarity } from '../../src/model/cosine-similarity.js';
import { prepareEmbeddingText } from '../../src/model/prepare-embedding-text.js';
import { requireTestModel } from './test-models.js';

const model = requireTestModel('PLAITED_TEST_EMBED_MODEL');
const open: Embedder[] = [];
const dirs: string[] = [];

function embedder(options: { cacheDb?: string; lruSize?: number; batchSize?: number } = {}): Embedder {
  const e = createEmbedder({ model, threads: 1, ...options });
  open.push(e);
  return e;
}

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-embedder-'));
  dirs.push(dir);
  return join(dir, 'cache.db');
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('prepareEmbeddingText', () => {
  it('splits camelCase, acronyms and digits; collapses whitespace', () => {
    expect(prepareEmbeddingText('getWeather')).toBe('get Weather');
    expect(prepareEmbeddingText('parseHTTPResponse  now')).toBe('parse HTTP Response now');
    expect(prepareEmbeddingText('sha256Sum\n')).toBe('sha 256 Sum');
    expect(prepareEmbeddingText('read_file')).toBe('read_file');
  });
});

describe('createEmbedder with the GloVe test model', () => {
  it('scores related sentences above unrelated ones', async () => {
    const e = embedder();
    const pairs: Array<[string, string, string]> = [
      ['read the contents of a file', 'open a file and return its text', "get tomorrow's weather forecast"],
      ['send an email to a colleague', 'compose and deliver a mail message', 'resize an image to thumbnails'],
      ['getWeather', 'current weather temperature in a city', 'delete a database table'],
      ['search the web for news', 'find recent news articles online', 'convert celsius to fahrenheit'],
    ];
    for (const [anchor, related, unrelated] of pairs) {
      const [a, r, u] = await e.embed([anchor, related, unrelated]);
      expect(cosineSimilarity(a, r), `${anchor} ~ ${related}`).toBeGreaterThan(cosineSimilarity(a, u) + 0.1);
    }
  });

  it('returns L2-normalised vectors and zero vectors (not NaN) for texts with no signal', async () => {
    const e = embedder();
    const [text, empty, stop] = await e.embed(['open a file', '', 'the of and']);
    expect(text.length).toBe(await e.dimensions());
    expect(Math.hypot(...text)).toBeCloseTo(1, 5);
    expect([...empty].every((x) => x === 0)).toBe(true);
    expect([...stop].every((x) => x === 0)).toBe(true);
    expect(cosineSimilarity(text, stop)).toBe(0);
  });

  it('cuts texts longer than the model context instead of failing', async () => {
    const e = embedder();
    const long = Array.from({ length: 1500 }, (_, i) => ['file', 'weather', 'network', 'email'][i % 4]).join(' ');
    const [v] = await e.embed([long]);
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
  });

  it('answers repeated texts from the LRU without calling the model', async () => {
    const e = embedder();
    const first = await e.embed(['list files in a folder', 'list files in a folder', 'write a file']);
    expect(e.stats()).toMatchObject({ modelCalls: 1, textsEmbedded: 2 });
    const again = await e.embed(['write a file', 'list files in a folder']);
    expect(e.stats()).toMatchObject({ modelCalls: 1, textsEmbedded: 2, lruHits: 2 });
    expect(again[0]).toEqual(first[2]);
    expect(again[1]).toEqual(first[0]);
  });

  it('runs the model once for concurrent calls with the same text', async () => {
    const e = embedder();
    const results = await Promise.all([e.embed(['fetch a web page']), e.embed(['fetch a web page']), e.embed(['fetch a web page'])]);
    expect(e.stats().modelCalls).toBe(1);
    expect(e.stats().textsEmbedded).toBe(1);
    expect(results[1][0]).toEqual(results[0][0]);
    expect(results[2][0]).toEqual(results[0][0]);
  });

  it('evicts the LRU by size', async () => {
    const e = embedder({ lruSize: 2 });
    await e.embed(['alpha file', 'beta file', 'gamma file']);
    await e.embed(['alpha file']);
    expect(e.stats()).toMatchObject({ modelCalls: 2, textsEmbedded: 4, lruHits: 0 });
  });

  it('reads vectors from SQLite after a restart, with zero model calls', async () => {
    const cacheDb = tempDb();
    const texts = ['read a file', 'run a shell command', 'search the web'];
    const first = embedder({ cacheDb });
    const before = await first.embed(texts);
    expect(first.stats().textsEmbedded).toBe(3);
    await first.close();

    const second = embedder({ cacheDb });
    const after = await second.embed(texts);
    expect(second.stats()).toEqual({ modelCalls: 0, textsEmbedded: 0, lruHits: 0, diskHits: 3 });
    expect(after).toEqual(before);
  });

  it('does not cache failures: once the missing model file appears, the same text is computed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaited-embedder-late-'));
    dirs.push(dir);
    const late = join(dir, 'late.gguf');
    const e = createEmbedder({ model: late, threads: 1 });
    open.push(e);
    await expect(e.embed(['open a file'])).rejects.toMatchObject({ code: 'model_file_not_found', model: late });
    symlinkSync(model, late);
    const [v] = await e.embed(['open a file']);
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    expect(e.stats()).toMatchObject({ modelCalls: 1, textsEmbedded: 1, lruHits: 0 });
  });

  it('rejects calls after close', async () => {
    const e = embedder();
    await e.close();
    await expect(e.embed(['anything'])).rejects.toMatchObject({ code: 'model_closed' });
  });
});
