import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize } from '../helpers/acp-cli.js';

const fixtureServer = join(resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures'), 'mcp/fixture-server.mjs');
const bed = acpTestBed({ prefix: 'plaited-first-prompt-' });

/** A project whose config file names MCP servers; no embedder can load (offline, BM25 only). */
function project(config: Record<string, unknown>): string {
  const cwd = bed.project();
  mkdirSync(join(cwd, '.plaited'));
  writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: join(cwd, 'no-such-embedder.gguf') }, ...config }));
  return cwd;
}

const server = (id: string, startDelayMs: number) => ({
  id,
  transport: 'stdio',
  command: process.execPath,
  args: [fixtureServer, '--name', id, '--start-delay', String(startDelayMs)],
});

describe('the first prompt and the config file\'s MCP servers', () => {
  it('waits for configured servers, so the first prompt already finds their tools, and logs the progress', async () => {
    // Discovery for every turn (threshold 0): the tool is found only once its catalog is indexed.
    const cwd = project({ mcp: { servers: [server('cfg', 1_500)], discovery: { threshold: 0 } } });
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const before = bed.server.requests.length;
    bed.server.push({ text: 'first' }, { text: 'second' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo this text back' }] });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo again' }] });
    const offered = bed.server.requests[before]!.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain('mcp__cfg__echo');
    const stderr = cli.stderr();
    expect(stderr).toContain('info: MCP: connecting 1 configured server');
    expect(stderr).toContain('info: MCP server "cfg": connected');
    expect(stderr).toMatch(/info: MCP server "cfg": indexed \d+ tools, \d+ resources, \d+ prompts \(\d+ new, 0 changed, 0 removed, 0 unchanged\) in \d+ ms/);
    // Offline without an embedder: said once, in one line, when discovery ran.
    const warnings = stderr.split('\n').filter((line) => line.includes('embedder'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^\[plaited-agent\] warn: embedder unavailable \(.+\); discovery uses keyword search only$/);
  });

  it('goes on after mcp.startupWaitMs with a notice naming the slow server', async () => {
    // 3 s, not 0.5: a stdio server now starts under the read-only layer (a bubblewrap start and the protected set first).
    const cwd = project({ mcp: { servers: [server('quick', 0), server('slowpoke', 60_000)], startupWaitMs: 3_000 } });
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const before = bed.server.requests.length;
    bed.server.push({ text: 'went on' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(response.stopReason).toBe('end_turn');
    const offered = bed.server.requests[before]!.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain('mcp__quick__echo');
    expect(offered.some((name) => name.startsWith('mcp__slowpoke__'))).toBe(false);
    const said = JSON.stringify(cli.updates.filter((n) => n.sessionId === sessionId));
    expect(said).toContain('MCP server \\"slowpoke\\" still connecting after 3000 ms (mcp.startupWaitMs)');
    expect(said).not.toContain('\\"quick\\" still connecting');
  });
});
