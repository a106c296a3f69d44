import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, stdioConfig } from './fixture-servers.js';
import { discoveryRegistry } from './registry-helpers.js';

// Discovery among many tools on two servers, through the real hybrid index and the shared
// word-vector embedder (PLAITED_TEST_EMBED_MODEL).
const bed = discoveryRegistry(async (registry) => {
  await registry.servers.add(stdioConfig('assistant', { args: ['--catalog', join(FIXTURES, 'catalog-many.json')], description: 'Everyday assistant tools' }));
  await registry.servers.add(stdioConfig('devkit', { description: 'Developer utilities: echo, math, notes' }));
}, 120_000);

describe('discovery among many MCP tools', () => {
  const cases: Array<[intent: string, tool: string]> = [
    ['what will the weather be like in Paris tomorrow?', 'mcp__assistant__get_weather_forecast'],
    ['please open an issue in our repo about the login crash', 'mcp__assistant__create_github_issue'],
    ['book a table for four people at Luigi tonight', 'mcp__assistant__reserve_restaurant_table'],
    ['how much is 100 dollars in euros', 'mcp__assistant__convert_currency'],
    ['where is my parcel? here is the tracking number', 'mcp__assistant__track_package'],
    ['add 17 and 25', 'mcp__devkit__add'],
  ];

  it.each(cases)('"%s" → %s first', async (intent, expected) => {
    const matches = await bed.registry.tools.search(intent, { limit: 8 });
    expect(matches[0]?.tool.name).toBe(expected);
  });

  it('ranks tools, resources and prompts together', async () => {
    const hits = await bed.registry.discoverRelevant('greet a new colleague by name', { limit: 5 });
    expect(hits[0]).toMatchObject({ kind: 'prompt', prompt: { mcpName: 'greet' } });
    const readme = await bed.registry.discoverRelevant('how do I use the fixture server readme', { limit: 5 });
    expect(readme[0]).toMatchObject({ kind: 'resource', resource: { uri: 'fixture://readme' } });
  });
});
