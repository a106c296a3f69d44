import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { agentText, initialize, type AcpCli } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';

const fixtureServer = join(resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures'), 'mcp/fixture-server.mjs');
const bed = acpTestBed({ prefix: 'plaited-mcp-operator-' });

function project(config: Record<string, unknown>): string {
  const cwd = bed.project();
  mkdirSync(join(cwd, '.plaited'));
  writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: join(cwd, 'no-such-embedder.gguf') }, ...config }));
  return cwd;
}

const told = (cli: AcpCli, sessionId: string, server = 'ghost') =>
  cli.updates.filter((n) => n.sessionId === sessionId && JSON.stringify(n.update).includes(`MCP server \\"${server}\\" is unavailable`));

describe('MCP servers an operator can see', () => {
  it('tells the client once that a configured server cannot start, lists it as failed under /mcp, and stops retrying it', async () => {
    const cwd = project({ mcp: { servers: [{ id: 'ghost', transport: 'stdio', command: 'no-such-mcp-server-command', args: ['--x'] }], startupWaitMs: 500 } });
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    // /mcp is announced with the agent's own commands.
    await waitFor(() => cli.updates.some((n) => n.update.sessionUpdate === 'available_commands_update' && JSON.stringify(n.update).includes('"mcp"')), 10_000, '/mcp announced');
    await waitFor(() => told(cli, sessionId).length > 0, 15_000, 'the notice about "ghost"');
    expect(JSON.stringify(told(cli, sessionId)[0]!.update)).toContain('command \\"no-such-mcp-server-command\\" was not found on PATH');

    // The bounded backoff of a permanent failure ends with the server marked failed.
    await waitFor(() => cli.stderr().includes('MCP server "ghost" failed'), 15_000, 'ghost marked failed');
    const from = cli.updates.length;
    const listed = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/mcp' }] });
    expect(listed.stopReason).toBe('end_turn');
    const text = agentText(cli, sessionId, from);
    expect(text).toContain('- ghost (config, stdio): failed');
    expect(text).toContain('last error (connect_failed)');
    expect(text).toContain('not retried any more');
    // Answered by the agent itself: the model was never asked.
    expect(bed.server.requests).toHaveLength(0);

    // A turn after the failure neither starts it again nor tells the client again.
    bed.server.push({ text: 'done' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    const attempts = cli.stderr().split('\n').filter((line) => line.includes('MCP server "ghost": connecting'));
    expect(attempts).toHaveLength(3);
    expect(told(cli, sessionId)).toHaveLength(1);

    // A session started later hears of it too, once.
    const second = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    await waitFor(() => told(cli, second.sessionId).length > 0, 10_000, 'the notice in the second session');
    expect(told(cli, sessionId)).toHaveLength(1);
  });

  it('tells the client once when a configured server dies, and lists it connected again once it is back', async () => {
    const cwd = project({ mcp: { servers: [{ id: 'cfg', transport: 'stdio', command: process.execPath, args: [fixtureServer, '--name', 'cfg'] }] } });
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ toolCalls: [{ name: 'mcp__cfg__crash', arguments: {} }] }, { text: 'It crashed.' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'crash the server' }] });
    await waitFor(() => told(cli, sessionId, 'cfg').length > 0, 15_000, 'the notice about "cfg"');
    expect(JSON.stringify(told(cli, sessionId, 'cfg')[0]!.update)).toContain('Retrying in the background');
    await waitFor(() => cli.stderr().split('\n').filter((line) => line.includes('MCP server "cfg": connected')).length >= 2, 15_000, 'cfg back');
    const from = cli.updates.length;
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/mcp' }] });
    expect(agentText(cli, sessionId, from)).toMatch(/- cfg \(config, stdio\): connected, \d+ tools/);
    expect(told(cli, sessionId, 'cfg')).toHaveLength(1);
  });
});
