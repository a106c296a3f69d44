import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { sharedAcpBed } from '../helpers/shared-acp-bed.js';
import { waitFor } from '../helpers/wait-for.js';
import { agentText, initialize } from '../helpers/acp-cli.js';
import { requireTestModel } from '../model/test-models.js';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures');
const fixtureServer = join(fixtures, 'mcp/fixture-server.mjs');
const embedModel = requireTestModel('PLAITED_TEST_EMBED_MODEL');

/**
 * One model server for the file, and one CLI on the default config for the tests that need no
 * other (a start is ~1 s of CPU): its project holds the skills fixture, the skills test runs last
 * in that project and restarts it. The discovery test needs its own config, so its own CLI.
 */
const bed = sharedAcpBed({ prefix: 'plaited-ctx-' });

/** A project whose config points the embedder at the test model (the default needs a download). */
function project(config: Record<string, unknown> = {}): string {
  const cwd = bed.project();
  mkdirSync(join(cwd, '.plaited'), { recursive: true });
  writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: embedModel, threads: 1 }, ...config }));
  return cwd;
}

function skillsProject(): string {
  const cwd = project();
  cpSync(join(fixtures, 'context/skills-project/.plaited/skills'), join(cwd, '.plaited/skills'), { recursive: true });
  return cwd;
}

const stdioServer = (name: string, args: string[] = []): acp.McpServer => ({
  name,
  command: process.execPath,
  args: [fixtureServer, '--name', name, ...args],
  env: [],
});


describe('ACP sessions with MCP servers and context', () => {
  const shared = bed.shared({ cwd: skillsProject() });
  it('connects the MCP servers of session/new and calls their tools through the permission flow', async () => {
    const cwd = project();
    const { cli } = shared;
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [stdioServer('fixture')] });
    bed.server.push({ toolCalls: [{ name: 'mcp__fixture__echo', arguments: { text: 'through MCP' } }] }, { text: 'Echoed.' });
    const before = bed.server.requests.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo something' }] });
    expect(response.stopReason).toBe('end_turn');
    const offered = bed.server.requests[before]!.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain('mcp__fixture__echo');
    expect(offered).toContain('read_file');
    expect(JSON.stringify(bed.server.requests[before + 1]!.messages)).toContain('through MCP');
  });

  it('reports a server that fails to start as a notice, and the session still works', async () => {
    const cwd = project();
    const { cli } = shared;
    const broken: acp.McpServer = { name: 'broken', command: '/nonexistent/mcp-server', args: [], env: [] };
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [broken] });
    bed.server.push({ text: 'fine' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(response.stopReason).toBe('end_turn');
    await waitFor(() => agentText(cli, sessionId).includes('broken'), 20_000);
    expect(agentText(cli, sessionId)).toMatch(/\[warning\].*broken/);
  });

  it('above the discovery threshold offers the relevant tools plus search_tools', async () => {
    const cwd = project({ mcp: { discovery: { threshold: 5, limit: 3 } } });
    const cli = bed.start(cwd);
    await initialize(cli);
    const catalog = join(fixtures, 'mcp/catalog-many.json');
    const { sessionId } = await cli.agent.request('session/new', {
      cwd,
      mcpServers: [stdioServer('many', ['--catalog', catalog])],
    });
    bed.server.push({ text: 'ok' });
    const before = bed.server.requests.length;
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what is the weather forecast for Paris tomorrow?' }] });
    const offered = bed.server.requests[before]!.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain('search_tools');
    expect(offered).toContain('mcp__many__get_weather_forecast');
    expect(offered.filter((name) => name.startsWith('mcp__')).length).toBeLessThanOrEqual(3);
  });

  // Last: it restarts the shared CLI.
  it('announces skills as slash commands and keeps a plan across session/load', async () => {
    const { cli: first, cwd } = shared;
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] });
    const own = (kind: string) => first.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind);
    await waitFor(() => own('available_commands_update').length > 0, 20_000);
    const commands = own('available_commands_update')[0]!.update as acp.AvailableCommandsUpdate;
    expect(commands.availableCommands.map((command) => command.name)).toContain('git-release');

    bed.server.push(
      { toolCalls: [{ name: 'plan', arguments: { items: [{ content: 'Write the release notes' }, { content: 'Tag the release' }] } }] },
      { text: 'Planned.' },
    );
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'plan the release' }] });
    const planUpdate = own('plan')[0];
    expect(planUpdate, JSON.stringify(bed.server.requests.at(-1)?.messages.at(-1))).toBeDefined();
    await shared.close();

    const second = bed.start(cwd);
    await initialize(second);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replayed = second.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'plan');
    expect(replayed.at(-1)!.update).toMatchObject({
      entries: [expect.objectContaining({ content: 'Write the release notes' }), expect.objectContaining({ content: 'Tag the release' })],
    });
  });
});
