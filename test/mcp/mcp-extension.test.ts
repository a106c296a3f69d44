import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.js';
import type { Agent, SessionInfo } from '../../src/agent/agent.js';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import type { TurnContext } from '../../src/agent/agent-extension.js';
import { configSchema, mcpServerSchema, type PlaitedConfigInput } from '../../src/config/schema.js';
import { createMcpExtension } from '../../src/mcp/mcp-extension.js';
import { McpRegistry } from '../../src/mcp/mcp-registry.js';
import type { HybridIndex } from '../../src/retrieval/hybrid-index.js';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { FIXTURES, stdioConfig } from './fixture-servers.js';
import { waitFor } from '../helpers/wait-for.js';
import { openTestIndex, tempDir } from './registry-helpers.js';

const MANY = join(FIXTURES, 'catalog-many.json');

let index: HybridIndex;
let registry: McpRegistry;
let cleanup: () => void;

beforeEach(async () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  index = await openTestIndex(temp.dir);
  registry = new McpRegistry({ index });
});
afterEach(async () => {
  await registry.close();
  index.close();
  cleanup();
});

function session(sessionId: string, mcpServers: SessionInfo['mcpServers']): SessionInfo {
  const now = new Date().toISOString();
  return { sessionId, cwd: tmpdir(), title: null, mode: 'default', createdAt: now, updatedAt: now, mcpServers };
}

function turn(sessionId: string, intent: string): TurnContext {
  return { sessionId, cwd: tmpdir(), intent, signal: new AbortController().signal, runtime: createLocalRuntime(tmpdir()), emit: () => undefined };
}

describe('MCP extension', () => {
  it('connects session servers at start, warns about a failed one, and closes them with the session', async () => {
    const extension = createMcpExtension({ registry, config: configSchema.parse({}) });
    const events: AgentOutput[] = [];
    const broken = mcpServerSchema.parse({ id: 'broken', transport: 'stdio', command: '/nonexistent/server' });
    await extension.onSessionStart?.(session('s1', [stdioConfig('own'), broken]), (event) => events.push(event));
    // Beside the notice, the extension's part of the slash commands: the prompts of the server that connected.
    const commands = events.filter((event) => event.type === 'commands');
    expect(commands.at(-1)?.type === 'commands' && commands.at(-1)!.commands.map((command) => command.name)).toEqual(['own:greet', 'own:summarize', 'own:review']);
    expect(events.filter((event) => event.type !== 'commands')).toEqual([
      expect.objectContaining({ type: 'notice', sessionId: 's1', level: 'warning', message: expect.stringContaining('MCP server "broken" is unavailable') }),
    ]);
    // A prompt of the server that is down: an error naming its state, not text for the model.
    const down = await extension.command?.('broken:greet', { sessionId: 's1', cwd: tmpdir() });
    expect(await down?.run('', { sessionId: 's1', cwd: tmpdir() })).toEqual({
      error: { code: 'invalid_input', message: expect.stringMatching(/^The MCP server "broken" is (reconnecting|failed): its prompts are offered once it connects\. \/mcp shows/) },
    });
    expect(await extension.command?.('nobody:greet', { sessionId: 's1', cwd: tmpdir() })).toBeUndefined();
    const tools = await extension.tools?.(turn('s1', 'echo something'));
    expect(tools?.map((tool) => tool.name)).toContain('mcp__own__echo');
    expect((await extension.tools?.(turn('s2', 'echo something')))?.map((tool) => tool.name)).not.toContain('mcp__own__echo');
    await extension.onSessionClose?.('s1');
    expect(registry.servers.list()).toEqual([]);
  });

  it('does not hold a session start for a slow server; it joins when ready', async () => {
    const extension = createMcpExtension({ registry, config: configSchema.parse({}), sessionStartWaitMs: 100 });
    const events: AgentOutput[] = [];
    await extension.onSessionStart?.(session('s3', [stdioConfig('late', { args: ['--start-delay', '1500'] })]), (event) => events.push(event));
    expect(registry.servers.get('late', { sessionId: 's3' })?.status).toBe('connecting');
    await registry.idle();
    expect(registry.servers.get('late', { sessionId: 's3' })?.status).toBe('connected');
    expect((await extension.tools?.(turn('s3', 'echo')))?.map((tool) => tool.name)).toContain('mcp__late__echo');
    // No notice; the slash commands: none at the start, the late server's prompts once it joined.
    expect(events.filter((event) => event.type !== 'commands')).toEqual([]);
    expect(events.map((event) => (event.type === 'commands' ? event.commands.map((command) => command.name).join() : event.type))).toEqual([
      '',
      'late:greet,late:summarize,late:review',
    ]);
  });

  it("withdraws a server's prompt commands while it is down and offers them again once it reconnects", async () => {
    const extension = createMcpExtension({ registry, config: configSchema.parse({}) });
    const announced: string[] = [];
    await extension.onSessionStart?.(session('s4', [stdioConfig('crashy')]), (event) => {
      if (event.type === 'commands') announced.push(event.commands.map((command) => command.name).join());
    });
    expect(announced).toEqual(['crashy:greet,crashy:summarize,crashy:review']);
    await registry.tools.execute('mcp__crashy__crash', {}, { sessionId: 's4' });
    await waitFor(() => announced.length === 3, 15_000, 'withdrawn, then offered again');
    expect(announced.slice(1)).toEqual(['', 'crashy:greet,crashy:summarize,crashy:review']);
  });

  it('offers every MCP tool at or below the threshold, without search_tools', async () => {
    await registry.servers.add(stdioConfig('few'));
    const count = registry.tools.list().length;
    const extension = createMcpExtension({ registry, config: configSchema.parse({ mcp: { discovery: { threshold: count } } }) });
    const names = (await extension.tools?.(turn('s', 'anything')))?.map((tool) => tool.name) ?? [];
    expect(names.filter((name) => name.startsWith('mcp__'))).toHaveLength(count);
    expect(names).not.toContain('search_tools');
    // The fixture serves resources: the model's way to them comes along.
    expect(names).toEqual(expect.arrayContaining(['list_resources', 'read_resource']));
  });

  it('above the threshold offers the top tools for the intent plus search_tools, and activates what search_tools finds', async () => {
    await registry.servers.add(stdioConfig('many', { args: ['--catalog', MANY] }));
    const extension = createMcpExtension({ registry, config: configSchema.parse({ mcp: { discovery: { threshold: 30, limit: 4 } } }) });
    const first = (await extension.tools?.(turn('s', 'convert 100 dollars to euros')))?.map((tool) => tool.name) ?? [];
    // At most `limit` tools plus search_tools (BM25 alone returns only tools that share a word).
    expect(first.length).toBeLessThanOrEqual(5);
    expect(first).toContain('search_tools');
    expect(first).toContain('mcp__many__convert_currency');
    expect(first).not.toContain('mcp__many__track_package');
    const searchTools = (await extension.tools?.(turn('s', 'convert 100 dollars to euros')))!.find((tool) => tool.name === 'search_tools')!;
    const result = await searchTools.execute({ query: 'track package delivery status' }, { ...turn('s', ''), toolCallId: 't1', allowedRoots: [], onUpdate: () => undefined });
    expect((result.content[0] as { text: string }).text).toContain('mcp__many__track_package');
    expect(extension.activated('s')).toContain('mcp__many__track_package');
    const second = (await extension.tools?.(turn('s', 'convert 100 dollars to euros')))?.map((tool) => tool.name) ?? [];
    expect(second).toContain('mcp__many__track_package');
    await extension.onTurnEnd?.(turn('s', ''), 'end_turn');
    expect((await extension.tools?.(turn('s', 'convert 100 dollars to euros')))?.map((tool) => tool.name)).not.toContain('mcp__many__track_package');
  });
});

describe('MCP tools through the agent loop', () => {
  const agents: Agent[] = [];
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.stop()));
  });

  async function run(agent: Agent, sessionId: string, text: string): Promise<AgentOutput[]> {
    const events: AgentOutput[] = [];
    for await (const event of agent.process({ sessionId, prompt: [{ type: 'text', text }] })) {
      events.push(event);
      if (event.type === 'permission-request') event.respond({ outcome: 'selected', optionId: 'allow-once' });
    }
    return events;
  }

  it('finds a tool with search_tools and calls it in the same turn', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-mcp-agent-'));
    const input: PlaitedConfigInput = { mcp: { discovery: { threshold: 30, limit: 3 } }, agent: { stateDb: join(cwd, 'state.db') } };
    const config = configSchema.parse(input);
    await registry.servers.add(stdioConfig('many', { args: ['--catalog', MANY] }));
    const model = scriptedModel([
      { toolCalls: [{ name: 'search_tools', input: { query: 'where is my parcel, track the package' } }] },
      { toolCalls: [{ name: 'mcp__many__track_package', input: { tracking_number: '1Z999' } }] },
      { text: 'Your package is on its way.' },
    ]);
    const agent = createAgent({ config, model, extensions: [createMcpExtension({ registry, config })], tools: [] });
    agents.push(agent);
    const created = await agent.sessions.create({ cwd });
    const events = await run(agent, created.sessionId, 'convert 100 dollars to euros');
    const offered = model.calls.map((call) => (call.tools ?? []).map((tool) => tool.name));
    expect(offered[0]).toContain('search_tools');
    expect(offered[0]).not.toContain('mcp__many__track_package');
    expect(offered[1]).toContain('mcp__many__track_package');
    const updates = events.filter((event) => event.type === 'tool-call-update' && event.status === 'completed');
    expect(JSON.stringify(updates)).toContain('track_package ran');
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
  });

  it('reports a tool call with invalid arguments back to the model as an error', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-mcp-agent-'));
    const config = configSchema.parse({ agent: { stateDb: join(cwd, 'state.db') } });
    await registry.servers.add(stdioConfig('calc'));
    const model = scriptedModel([{ toolCalls: [{ name: 'mcp__calc__add', input: { a: 'x', b: 2 } }] }, { text: 'Sorry.' }]);
    const agent = createAgent({ config, model, extensions: [createMcpExtension({ registry, config })], tools: [] });
    agents.push(agent);
    const created = await agent.sessions.create({ cwd });
    await run(agent, created.sessionId, 'add x and 2');
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('a: must be number');
    expect((await registry.tools.execute('mcp__calc__call_count', { tool: 'add' })).content).toEqual([{ type: 'text', text: '0' }]);
  });
});
