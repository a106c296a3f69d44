import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { agentText, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { requireTestModel } from '../model/test-models.js';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures');
const fixtureServer = join(fixtures, 'mcp/fixture-server.mjs');
const embedModel = requireTestModel('PLAITED_TEST_EMBED_MODEL');

/** A project whose config points the embedder at the test model (the default needs a download). */
function project(config: Record<string, unknown> = {}): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-ctx-'));
  mkdirSync(join(cwd, '.plaited'), { recursive: true });
  writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: embedModel, threads: 1 }, ...config }));
  return cwd;
}

/**
 * One model server for the file, and one CLI on the default config for the tests that need no
 * other (a start is ~1 s of CPU): its project holds the skills fixture, the skills test runs last
 * in that project and restarts it. The discovery test needs its own config, so its own CLI.
 * After each test no scripted step may be left over and every CLI's traffic matches the schema.
 */
let server: ScriptedOpenAIServer;
const own: AcpCli[] = [];
let shared: { cli: AcpCli; cwd: string };

function start(cwd: string): AcpCli {
  return startAcpCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', server.url] });
}
async function check(cli: AcpCli): Promise<void> {
  await cli.close();
  expect(cli.validator.errors, cli.validator.errors.join('\n')).toEqual([]);
}

beforeAll(async () => {
  server = await startScriptedOpenAIServer();
  const cwd = project();
  cpSync(join(fixtures, 'context/skills-project/.plaited/skills'), join(cwd, '.plaited/skills'), { recursive: true });
  shared = { cli: start(cwd), cwd };
  await initialize(shared.cli);
});
afterAll(async () => {
  await shared?.cli.close();
  await server?.close();
});
afterEach(async () => {
  for (const cli of own.splice(0)) await check(cli);
  expect(shared.cli.validator.errors, shared.cli.validator.errors.join('\n')).toEqual([]);
  expect(server.pending(), 'scripted steps the test left unused').toBe(0);
});

const stdioServer = (name: string, args: string[] = []): acp.McpServer => ({
  name,
  command: process.execPath,
  args: [fixtureServer, '--name', name, ...args],
  env: [],
});


describe('ACP sessions with MCP servers and context', () => {
  it('connects the MCP servers of session/new and calls their tools through the permission flow', async () => {
    const cwd = project();
    const { cli } = shared;
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [stdioServer('fixture')] });
    server.push({ toolCalls: [{ name: 'mcp__fixture__echo', arguments: { text: 'through MCP' } }] }, { text: 'Echoed.' });
    const before = server.requests.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo something' }] });
    expect(response.stopReason).toBe('end_turn');
    const offered = server.requests[before]!.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain('mcp__fixture__echo');
    expect(offered).toContain('read_file');
    expect(JSON.stringify(server.requests[before + 1]!.messages)).toContain('through MCP');
  });

  it('reports a server that fails to start as a notice, and the session still works', async () => {
    const cwd = project();
    const { cli } = shared;
    const broken: acp.McpServer = { name: 'broken', command: '/nonexistent/mcp-server', args: [], env: [] };
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [broken] });
    server.push({ text: 'fine' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(response.stopReason).toBe('end_turn');
    await waitFor(() => agentText(cli, sessionId).includes('broken'), 20_000);
    expect(agentText(cli, sessionId)).toMatch(/\[warning\].*broken/);
  });

  it('above the discovery threshold offers the relevant tools plus search_tools', async () => {
    const cwd = project({ mcp: { discovery: { threshold: 5, limit: 3 } } });
    const cli = start(cwd);
    own.push(cli);
    await initialize(cli);
    const catalog = join(fixtures, 'mcp/catalog-many.json');
    const { sessionId } = await cli.agent.request('session/new', {
      cwd,
      mcpServers: [stdioServer('many', ['--catalog', catalog])],
    });
    server.push({ text: 'ok' });
    const before = server.requests.length;
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what is the weather forecast for Paris tomorrow?' }] });
    const offered = server.requests[before]!.tools?.map((tool) => tool.function.name) ?? [];
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

    server.push(
      { toolCalls: [{ name: 'plan', arguments: { items: [{ content: 'Write the release notes' }, { content: 'Tag the release' }] } }] },
      { text: 'Planned.' },
    );
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'plan the release' }] });
    const planUpdate = own('plan')[0];
    expect(planUpdate, JSON.stringify(server.requests.at(-1)?.messages.at(-1))).toBeDefined();
    await check(first);

    const second = start(cwd);
    shared.cli = second;
    await initialize(second);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replayed = second.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'plan');
    expect(replayed.at(-1)!.update).toMatchObject({
      entries: [expect.objectContaining({ content: 'Write the release notes' }), expect.objectContaining({ content: 'Tag the release' })],
    });
  });
});
