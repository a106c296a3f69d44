import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/model/embedder.js';
import { cjkBigrams, cjkTerms, hasCjk } from '../../src/retrieval/cjk-bigrams.js';
import { openHybridIndex, type HybridIndex } from '../../src/retrieval/hybrid-index.js';
import type { IndexDocument } from '../../src/retrieval/search-index.js';
import { createTestEmbedder } from './test-embedder.js';

describe('cjkBigrams', () => {
  it('cuts a Chinese run into overlapping bigrams and sets Latin words apart', () => {
    expect(cjkBigrams('根据城市查询天气')).toBe(' 根据 据城 城市 市查 查询 询天 天气 ');
    expect(cjkBigrams('标准adcode查询').split(/\s+/).filter(Boolean)).toEqual(['标准', 'adcode', '查询']);
  });

  it('handles Japanese kana with the long-vowel mark and Korean words', () => {
    expect(cjkBigrams('データ').split(/\s+/).filter(Boolean)).toEqual(['デー', 'ータ']);
    expect(cjkBigrams('파일을 읽습니다').split(/\s+/).filter(Boolean)).toEqual(['파일', '일을', '읽습', '습니', '니다']);
  });

  it('keeps a one-character run and leaves text without CJK untouched', () => {
    expect(cjkBigrams('a 天 b').split(/\s+/).filter(Boolean)).toEqual(['a', '天', 'b']);
    expect(cjkBigrams('get_weather for Paris')).toBe('get_weather for Paris');
    expect(hasCjk('café über')).toBe(false);
  });

  it('expands only CJK-bearing query terms, without duplicates', () => {
    expect(cjkTerms(['weather', 'ip在哪个城市'])).toEqual(['weather', 'ip', '在哪', '哪个', '个城', '城市']);
    expect(cjkTerms(['天气天气'])).toEqual(['天气', '气天']);
    expect(cjkTerms(['find', 'files'])).toEqual(['find', 'files']);
  });
});

/** The real AMap and Baidu Maps tools (Chinese descriptions) with some English-described neighbours. */
function realMapTools(): IndexDocument[] {
  const lines = readFileSync(join(import.meta.dirname, '../../bench/data/real-mcp-catalog/tools.jsonl'), 'utf8').split('\n');
  return lines
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { id: string; name: string; description: string; server: string })
    .filter((tool) => ['amap', 'baidu-map', 'google-maps', 'brave-search', 'filesystem'].includes(tool.server))
    .map((tool) => ({ id: tool.id, kind: 'tool', namespace: tool.server, fields: { name: tool.name, description: tool.description, group: tool.server } }));
}

describe('Chinese requests in the hybrid index', () => {
  let embedder: Embedder;
  let index: HybridIndex;
  let dir: string;

  beforeAll(async () => {
    embedder = createTestEmbedder();
    dir = mkdtempSync(join(tmpdir(), 'plaited-cjk-'));
    index = await openHybridIndex({ path: ':memory:', embedder });
    const tools = realMapTools();
    for (const server of new Set(tools.map((tool) => tool.namespace))) {
      await index.sync(server, tools.filter((tool) => tool.namespace === server));
    }
  });

  afterAll(async () => {
    index.close();
    await embedder.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the Chinese-described weather tools for a Chinese weather request', async () => {
    for (const mode of ['bm25', 'hybrid'] as const) {
      const top = (await index.search('北京明天天气怎么样？', { limit: 2, mode })).map((hit) => hit.id);
      expect(top.sort()).toEqual(['amap__maps_weather', 'baidu-map__map_weather']);
    }
  });

  it('finds the Chinese-described tool for a request that shares only two-character words with it', async () => {
    const [first] = await index.search('帮我规划一条公交路线', { limit: 1 });
    expect(first?.id).toBe('amap__maps_direction_transit_integrated');
  });

  it('finds a Chinese-described tool from an English request word inside its description', async () => {
    // "根据城市名称或者标准adcode查询…": the Latin word inside the Chinese run is its own token.
    const [first] = await index.search('adcode', { limit: 1, mode: 'bm25' });
    expect(first?.id).toBe('amap__maps_weather');
  });

  it('finds nothing CJK when switched off (one token per run)', async () => {
    const plain = await openHybridIndex({ path: ':memory:', tuning: { cjkBigrams: false } });
    const tools = realMapTools();
    for (const server of new Set(tools.map((tool) => tool.namespace))) await plain.sync(server, tools.filter((tool) => tool.namespace === server));
    expect(await plain.search('北京明天天气怎么样？', { limit: 3 })).toEqual([]);
    plain.close();
  });

  it('re-indexes an index file written without bigrams when it is reopened with them', async () => {
    const path = join(dir, 'index.db');
    const tools = realMapTools().filter((tool) => tool.namespace === 'amap');
    const before = await openHybridIndex({ path, tuning: { cjkBigrams: false } });
    await before.sync('amap', tools);
    before.close();
    const after = await openHybridIndex({ path });
    expect(await after.sync('amap', tools)).toEqual({ added: 0, updated: tools.length, removed: 0, unchanged: 0 });
    const [first] = await after.search('查询天气', { limit: 1 });
    expect(first?.id).toBe('amap__maps_weather');
    after.close();
  });
});
