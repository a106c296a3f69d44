import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { TurnContext } from '../../src/agent/agent-extension.js';
import { configSchema } from '../../src/config/schema.js';
import { createMcpExtension } from '../../src/mcp/mcp-extension.js';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import { realCatalogConfigs } from './real-catalog-servers.js';
import { discoveryRegistry } from './registry-helpers.js';

// The first offer of tools for a multi-step request, over real recorded MCP servers (fixture
// processes over stdio), the real hybrid index and the shared GloVe embedder.
const bed = discoveryRegistry(async (registry, dir) => {
  for (const config of realCatalogConfigs(dir, ['brave-search', 'chart', 'desktop-commander', 'filesystem', 'slack', 'github', 'git'])) {
    await registry.servers.add(config);
  }
}, 180_000);

function turn(intent: string): TurnContext {
  return { sessionId: 's', cwd: tmpdir(), intent, signal: new AbortController().signal, runtime: createLocalRuntime(tmpdir()), emit: () => undefined };
}

async function firstOffer(intent: string, limit: number): Promise<string[]> {
  const extension = createMcpExtension({ registry: bed.registry, config: configSchema.parse({ mcp: { discovery: { threshold: 10, limit } } }) });
  return ((await extension.tools?.(turn(intent))) ?? []).map((tool) => tool.name);
}

describe('the first offer of a multi-step request', () => {
  const request = "Search the web for this week's Node.js release news, draw a line chart of the weekly downloads and post it to the engineering Slack channel";

  it('holds the best tool of every step, within the offer limit', async () => {
    const offered = await firstOffer(request, 4);
    expect(offered).toContain('search_tools');
    // The limit is of MCP tools; list_resources and read_resource come along while servers list resources.
    expect(offered.filter((name) => name.startsWith('mcp__')).length).toBeLessThanOrEqual(4);
    expect(offered).toContain('mcp__brave_search__brave_web_search');
    expect(offered).toContain('mcp__chart__generate_line_chart');
    expect(offered).toContain('mcp__slack__slack_post_message');
  });

  it('ranks every step through discoverRelevant, each step first before any second hit', async () => {
    const hits = await bed.registry.discoverRelevant(request, { limit: 4, kinds: ['tool'] });
    const names = hits.map((hit) => (hit.kind === 'tool' ? hit.tool.name : ''));
    expect(names).toHaveLength(4);
    expect(names).toEqual(expect.arrayContaining(['mcp__brave_search__brave_web_search', 'mcp__chart__generate_line_chart', 'mcp__slack__slack_post_message']));
  });

  it('searches a one-step request once, as the whole request', async () => {
    const offered = await firstOffer('commit my staged changes with a message', 3);
    const whole = (await bed.registry.tools.search('commit my staged changes with a message', { limit: 3 })).map((match) => match.tool.name);
    expect(offered.filter((name) => name.startsWith('mcp__'))).toEqual(whole);
  });
});
