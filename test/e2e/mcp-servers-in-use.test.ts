import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize, type AcpCli } from '../helpers/acp-cli.js';
import type { RecordedRequest } from '../helpers/scripted-openai-server.js';

// The user of many MCP servers, through the built CLI on the scripted model: what the model is
// offered and gets back when servers change their catalogs, answer hugely or hand out resources.
const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures');
const fixtureServer = join(fixtures, 'mcp/fixture-server.mjs');
const bed = acpTestBed({ prefix: 'plaited-mcp-in-use-' });

function project(servers: Array<Record<string, unknown>>): string {
  const cwd = bed.project();
  mkdirSync(join(cwd, '.plaited'));
  writeFileSync(
    join(cwd, '.plaited/config.json'),
    JSON.stringify({ embedder: { model: join(cwd, 'no-such-embedder.gguf') }, mcp: { servers } }),
  );
  return cwd;
}

const fixture = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  transport: 'stdio',
  command: process.execPath,
  args: [fixtureServer, '--name', id],
  ...extra,
});

async function session(cwd: string): Promise<{ cli: AcpCli; sessionId: string }> {
  const cli = bed.start(cwd);
  await initialize(cli);
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
  return { cli, sessionId };
}

const offered = (request: RecordedRequest) => request.tools?.map((tool) => tool.function.name) ?? [];
const toolMessages = (request: RecordedRequest) =>
  (request.messages as Array<{ role: string; content: unknown }>).filter((message) => message.role === 'tool').map((message) => JSON.stringify(message.content));

describe('MCP servers in use', () => {
  it('a tool that makes its server add tools (tools/list_changed) is followed by a step that is offered them and can call them', async () => {
    const { cli, sessionId } = await session(project([fixture('fx')]));
    bed.server.push(
      { toolCalls: [{ name: 'mcp__fx__add_tool', arguments: { name: 'brand_new' } }] },
      { toolCalls: [{ name: 'mcp__fx__brand_new', arguments: {} }] },
      { text: 'done' },
    );
    const before = bed.server.requests.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'switch on brand_new and use it' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(offered(bed.server.requests[before]!)).not.toContain('mcp__fx__brand_new');
    expect(offered(bed.server.requests[before + 1]!)).toContain('mcp__fx__brand_new');
    expect(toolMessages(bed.server.requests[before + 2]!).at(-1)).toContain('brand_new ran');
  });
});
