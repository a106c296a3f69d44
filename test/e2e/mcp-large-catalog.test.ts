import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';
import { initialize } from '../helpers/acp-cli.js';
import { requireTestModel } from '../model/test-models.js';

const fixtureServer = join(resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures'), 'mcp/fixture-server.mjs');
const embedModel = requireTestModel('PLAITED_TEST_EMBED_MODEL');
const bed = acpTestBed({ prefix: 'plaited-large-catalog-' });

const TOPICS = ['invoice', 'customer', 'weather', 'ticket', 'deploy', 'branch', 'calendar', 'email', 'payment', 'report', 'shipment', 'alert'];

/** 3,000 generated tools, and one whose input schema nests 3,000 JSON levels deep. */
function writeCatalog(file: string): void {
  const tools: unknown[] = Array.from({ length: 3000 }, (_, i) => {
    const [a, b] = [TOPICS[i % TOPICS.length]!, TOPICS[(i * 7 + 3) % TOPICS.length]!];
    return {
      name: `tool_${i}_${a}_${b}`,
      description: `Handles ${a} and ${b} records (set ${i}): create, update, list and archive them.`,
      inputSchema: { type: 'object', properties: { id: { type: 'string', description: `The ${a} id` }, note: { type: 'string' } }, required: ['id'] },
    };
  });
  // One distinct tool among them, to show the catalog is searchable.
  tools[1234] = { name: 'forecast_hurricane_landfall', description: 'Forecast where and when a hurricane makes landfall.', inputSchema: { type: 'object', properties: { storm: { type: 'string' } } } };
  let deep: unknown = { type: 'string' };
  for (let level = 0; level < 1500; level++) deep = { type: 'object', properties: { inner: deep } }; // two JSON levels each
  tools.push({ name: 'deeply_nested_payroll_export', description: 'Export the payroll ledger.', inputSchema: { type: 'object', properties: { root: deep } } });
  writeFileSync(file, JSON.stringify(tools));
}

describe('a 3,000-tool MCP catalog', () => {
  it('is indexed while every request is answered, and one too-deep tool is skipped, not the catalog', async () => {
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'));
    const catalog = join(cwd, 'catalog.json');
    writeCatalog(catalog);
    const many = { id: 'many', transport: 'stdio', command: process.execPath, args: [fixtureServer, '--name', 'many', '--catalog', catalog, '--page-size', '500'], timeoutMs: 60_000 };
    writeFileSync(
      join(cwd, '.plaited/config.json'),
      JSON.stringify({ embedder: { model: embedModel, threads: 1 }, mcp: { servers: [many], discovery: { threshold: 5, limit: 5 } } }),
    );
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const indexed = () => /MCP server "many": indexed/.test(cli.stderr());
    await waitFor(() => /MCP server "many": connected/.test(cli.stderr()), 60_000, 'the catalog server connected');
    await waitFor(() => /"deeply_nested_payroll_export" is left out/.test(cli.stderr()) || indexed(), 60_000, 'the catalog listed');

    // While its 3,000 tools are embedded and indexed, the agent keeps answering.
    const listed = await cli.agent.request('session/list', {});
    expect(indexed()).toBe(false);
    expect(listed.sessions.map((session: { sessionId: string }) => session.sessionId)).toContain(sessionId);

    await waitFor(indexed, 240_000, 'the catalog indexed');
    expect(cli.stderr()).toMatch(/MCP server "many": indexed 3000 tools/);
    expect(cli.stderr()).toMatch(/warn: MCP server "many": tools\/list item "deeply_nested_payroll_export" is left out \(nested deeper than 64 levels\)/);

    const before = bed.server.requests.length;
    bed.server.push({ text: 'ok' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'where will the hurricane make landfall?' }] });
    const offered = bed.server.requests[before]!.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain('mcp__many__forecast_hurricane_landfall');
    expect(offered).not.toContain('mcp__many__deeply_nested_payroll_export');
  }, 300_000);
});
