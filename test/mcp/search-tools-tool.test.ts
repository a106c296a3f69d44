import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createSearchToolsTool } from '../../src/mcp/search-tools-tool.js';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import { realCatalogConfigs } from './real-catalog-servers.js';
import { discoveryRegistry } from './registry-helpers.js';

// search_tools over real recorded MCP servers (served by fixture processes over stdio), the
// real hybrid index and the shared GloVe embedder.
const found: string[] = [];

const bed = discoveryRegistry(async (registry, dir) => {
  const terse = {
    design: [
      { name: 'export_frames', description: '', inputSchema: { type: 'object', properties: { fileKey: { type: 'string' }, format: { type: 'string' } } } },
      { name: 'list_projects', description: 'List the design projects of a team.' },
    ],
  };
  for (const config of realCatalogConfigs(dir, ['filesystem', 'desktop-commander', 'chart', 'brave-search', 'slack', 'puppeteer', 'playwright'], terse)) {
    await registry.servers.add(config);
  }
}, 180_000);

async function search(query: string, limit?: number): Promise<string> {
  const tool = createSearchToolsTool({ registry: bed.registry, onFound: (_sessionId, names) => found.splice(0, found.length, ...names) });
  const result = await tool.execute(
    { query, limit },
    { sessionId: 's', toolCallId: 't', signal: new AbortController().signal, runtime: createLocalRuntime(tmpdir()), emit: () => undefined, allowedRoots: [], onUpdate: () => undefined },
  );
  return (result.content[0] as { text: string }).text;
}

const RESULT_LINE = /^\d+\. mcp__\S+ \[[\w-]+\]: .+$/;

describe('search_tools results', () => {
  it('list each tool with its server and a one-line summary, never the whole description', async () => {
    const text = await search('write a file');
    const [head, ...lines] = text.split('\n');
    expect(head).toBe('Tools for "write a file" (callable now):');
    const results = lines.filter((line) => /^\d+\./.test(line));
    expect(results.length).toBeGreaterThan(3);
    for (const line of results) {
      expect(line).toMatch(RESULT_LINE);
      expect(line.length).toBeLessThanOrEqual(200);
    }
    // desktop-commander's write_file has a description of a hundred words and more.
    expect(text).not.toContain('CHUNKING IS STANDARD PRACTICE');
    expect(text.length).toBeLessThan(1_600);
  });

  it('group the same job on different servers into one entry with its alternatives, all callable', async () => {
    const text = await search('write a file');
    const lines = text.split('\n');
    const at = lines.findIndex((line) => /^\d+\. mcp__(filesystem|desktop_commander)__write_file /.test(line));
    expect(at).toBeGreaterThan(0);
    const other = lines[at].includes('mcp__filesystem__') ? 'mcp__desktop_commander__write_file [desktop-commander]' : 'mcp__filesystem__write_file [filesystem]';
    expect(lines[at + 1]).toMatch(/^ {3}same job: /);
    expect(lines[at + 1]).toContain(other);
    expect(lines.filter((line) => line.includes('__write_file')).length).toBe(2);
    expect(found).toEqual(expect.arrayContaining(['mcp__filesystem__write_file', 'mcp__desktop_commander__write_file']));
  });

  it('say when nothing matched well, and still list the closest tools', async () => {
    const text = await search('book a flight to Tokyo');
    expect(text.split('\n')[0]).toMatch(/^Nothing matched "book a flight to Tokyo" well; the closest tools/);
    expect(text.split('\n').filter((line) => RESULT_LINE.test(line)).length).toBeGreaterThan(0);
    expect((await search('take a screenshot of the page')).split('\n')[0]).toBe('Tools for "take a screenshot of the page" (callable now):');
  });

  it('summarise a tool without a description from its name and arguments', async () => {
    const text = await search('export design frames');
    expect(text).toMatch(/^\d+\. mcp__design__export_frames \[design\]: export frames \(fileKey, format\)$/m);
  });

  it('keep the limit on listed jobs', async () => {
    const text = await search('chart', 3);
    expect(text.split('\n').filter((line) => /^\d+\./.test(line))).toHaveLength(3);
  });
});
