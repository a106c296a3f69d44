import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commonNameWords, groupNearDuplicates } from '../../src/mcp/group-near-duplicates.js';
import { matchStrength } from '../../src/mcp/match-strength.js';
import { toolSummary } from '../../src/mcp/tool-summary.js';

interface CatalogTool {
  id: string;
  name: string;
  description: string;
  server: string;
  inputSchema: unknown;
}

const tools: CatalogTool[] = readFileSync(fileURLToPath(new URL('../../bench/data/real-mcp-catalog/tools.jsonl', import.meta.url)), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as CatalogTool);
const byId = (id: string) => tools.find((tool) => tool.id === id)!;

describe('toolSummary', () => {
  it('keeps the first sentence of a long description, whitespace collapsed', () => {
    const firecrawl = byId('firecrawl__firecrawl_search');
    expect(firecrawl.description.length).toBeGreaterThan(500);
    expect(toolSummary(firecrawl)).toBe('Search the web and optionally extract content from search results');
  });

  it('does not end a sentence at "e.g." or a version number, and clips at a word boundary', () => {
    expect(toolSummary({ name: 'x', description: 'Reads a file, e.g. a log of v1.2 or newer. Then more.' })).toBe('Reads a file, e.g. a log of v1.2 or newer');
    const clipped = toolSummary({ name: 'x', description: `Generate ${'very '.repeat(40)}long charts.` });
    expect(clipped.length).toBeLessThanOrEqual(110);
    expect(clipped).toMatch(/very…$/);
  });

  it('cuts a Chinese description at its full stop', () => {
    expect(toolSummary({ name: 'maps_weather', description: '根据城市名称查询天气。返回未来几天的预报' })).toBe('根据城市名称查询天气。');
  });

  it('builds a summary from the name and arguments when the description is empty or only the name', () => {
    const schema = { type: 'object', properties: { fileKey: {}, nodeId: {} } };
    expect(toolSummary({ name: 'getFigmaData', description: '', inputSchema: schema })).toBe('get figma data (fileKey, nodeId)');
    expect(toolSummary({ name: 'get_figma_data', description: 'get_figma_data' })).toBe('get figma data');
    expect(toolSummary({ name: 'gfd', title: 'Get Figma data', description: 'Get Figma data' })).toBe('Get Figma data');
  });
});

describe('groupNearDuplicates (recorded real tools)', () => {
  const serverWords = (serverId: string) => commonNameWords(serverId, tools.filter((tool) => tool.server === serverId).map((tool) => tool.name));
  const view = (tool: CatalogTool) => ({ toolName: tool.name, serverId: tool.server, description: tool.description });
  const group = (ids: string[]) => groupNearDuplicates(ids.map(byId), view, serverWords).map((entry) => [entry.first.id, ...entry.alternatives.map((tool) => tool.id)]);

  it('groups the same job on different servers, keeping rank order', () => {
    expect(group(['filesystem__write_file', 'chart__generate_bar_chart', 'desktop-commander__write_file'])).toEqual([
      ['filesystem__write_file', 'desktop-commander__write_file'],
      ['chart__generate_bar_chart'],
    ]);
    // The server's own prefix is not part of the job: puppeteer_navigate = browser_navigate.
    expect(group(['playwright__browser_navigate', 'puppeteer__puppeteer_navigate'])).toEqual([['playwright__browser_navigate', 'puppeteer__puppeteer_navigate']]);
    expect(group(['tavily__tavily_search', 'firecrawl__firecrawl_search'])).toEqual([['tavily__tavily_search', 'firecrawl__firecrawl_search']]);
  });

  it('keeps apart a same-named tool that does another job, and tools of one server', () => {
    expect(group(['tavily__tavily_search', 'elasticsearch__search'])).toHaveLength(2);
    expect(group(['filesystem__read_file', 'filesystem__read_text_file'])).toHaveLength(2);
  });
});

describe('matchStrength', () => {
  it('is the share of the query words a tool covers, by stem', () => {
    const text = 'write_file Create a new file or completely overwrite an existing file with new content. path content';
    expect(matchStrength('write files', text)).toBe(1);
    expect(matchStrength('writing new files', text)).toBe(1);
    expect(matchStrength('please write a file to disk', text)).toBeCloseTo(2 / 3);
    expect(matchStrength('book a flight', text)).toBe(0);
    expect(matchStrength('translate text', 'lara translation of a text')).toBe(1);
  });

  it('counts Han-script queries by character pairs', () => {
    expect(matchStrength('天气预报', 'maps_weather 根据城市名称查询天气预报')).toBe(1);
    expect(matchStrength('公交路线', 'maps_weather 根据城市名称查询天气')).toBe(0);
  });
});
