import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { project, resultText, startMcpCli, type McpCli } from '../adapters/mcp-server/mcp-test-kit.js';

const FIXTURE_SERVER = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));
const clis: McpCli[] = [];
afterEach(async () => {
  for (const cli of clis.splice(0)) await cli.close();
});

describe('adapters.mcp.exposeRegistry: the agent mounts its own MCP registry for the host', () => {
  it('offers discover and call over the servers the agent is connected to', async () => {
    const cwd = project();
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(
      join(cwd, '.plaited/config.json'),
      JSON.stringify({
        mcp: { servers: [{ id: 'fx', transport: 'stdio', command: process.execPath, args: [FIXTURE_SERVER, '--name', 'fx'] }] },
        adapters: { mcp: { exposeRegistry: true } },
      }),
    );
    const cli = await startMcpCli({ cwd });
    clis.push(cli);
    const { tools } = await cli.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['call', 'discover', 'list_sessions', 'new_session', 'prompt']);

    // The fixture server connects in the background; discovery finds its tools once indexed.
    let names: string[] = [];
    const deadline = Date.now() + 20_000;
    while (!names.includes('mcp__fx__echo')) {
      if (Date.now() > deadline) throw new Error(`discover never returned mcp__fx__echo; last: ${JSON.stringify(names)}\n${cli.stderr()}`);
      const found = await cli.client.callTool({ name: 'discover', arguments: { intent: 'echo the given text back', limit: 5 } });
      names = ((found.structuredContent as { hits: Array<{ name: string }> }).hits ?? []).map((hit) => hit.name);
      if (!names.includes('mcp__fx__echo')) await new Promise((wait) => setTimeout(wait, 200));
    }

    const echoed = await cli.client.callTool({ name: 'call', arguments: { name: 'mcp__fx__echo', arguments: { text: 'through the registry' } } });
    expect(echoed.isError).toBeFalsy();
    expect(resultText(echoed)).toBe('echo: through the registry');
    const unknown = await cli.client.callTool({ name: 'call', arguments: { name: 'mcp__fx__nope', arguments: {} } });
    expect(unknown.isError).toBe(true);
    expect(resultText(unknown)).toContain('Unknown tool');
  });
});
