import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpRegistry } from '../../src/mcp/mcp-registry.js';
import type { McpRegistryEvent } from '../../src/mcp/mcp-registry-types.js';
import { mcpServerSchema } from '../../src/config/schema.js';
import type { HybridIndex } from '../../src/retrieval/hybrid-index.js';
import { PNG_BASE64 } from '../fixtures/mcp/fixture-catalog.mjs';
import { defineTool } from '../../src/tools/define-tool.js';
import { textResult } from '../../src/tools/tool-result.js';
import { z } from 'zod';
import { stdioConfig } from './fixture-servers.js';
import { waitFor } from '../helpers/wait-for.js';
import { childProcesses, isAlive } from '../helpers/count-processes.js';
import { openTestIndex, recordingIndex, tempDir } from './registry-helpers.js';

let index: HybridIndex;
let registry: McpRegistry;
let cleanup: () => void;
let events: McpRegistryEvent[];

beforeEach(async () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  index = await openTestIndex(temp.dir);
  events = [];
});
afterEach(async () => {
  await registry?.close();
  index.close();
  cleanup();
});

function newRegistry(options: Partial<ConstructorParameters<typeof McpRegistry>[0]> = {}): McpRegistry {
  registry = new McpRegistry({ index, reconnect: { initialDelayMs: 20, maxDelayMs: 200 }, ...options });
  registry.subscribe((event) => events.push(event));
  return registry;
}

describe('McpRegistry', () => {
  it('wraps every tool of a server as mcp__<server>__<tool> with risk from annotations', async () => {
    newRegistry();
    // The config trusts this server's annotations: its readOnlyHint makes a tool `read`.
    const info = await registry.servers.add(stdioConfig('fix-1', { description: 'Fixture tools', trustAnnotations: true }));
    expect(info.status).toBe('connected');
    expect(info.tools).toBeGreaterThan(10);
    const names = registry.tools.list().map((tool) => tool.name);
    expect(names).toContain('mcp__fix_1__echo');
    expect(names).toContain('mcp__fix_1__delete_note');
    expect(registry.tools.get('mcp__fix_1__echo')).toMatchObject({ source: 'mcp', risk: 'read', kind: 'read' });
    expect(registry.tools.get('mcp__fix_1__delete_note')).toMatchObject({ risk: 'write', kind: 'delete' });
    expect(registry.tools.get('mcp__fix_1__add_tool')).toMatchObject({ risk: 'external' });
    expect(registry.tools.resolve('mcp__fix_1__echo')).toEqual({ serverId: 'fix-1', toolName: 'echo' });
  });

  it('does not believe readOnlyHint from a server the config does not trust (issue 21 item 10)', async () => {
    newRegistry();
    await registry.servers.add(stdioConfig('untrusted'));
    expect(registry.tools.get('mcp__untrusted__echo')).toMatchObject({ risk: 'external', kind: 'read' });
    // Nor openWorldHint: false (it would let accept-edits run the tool unasked).
    expect(registry.tools.get('mcp__untrusted__delete_note')?.risk).toBe('external');
  });

  it('executes tools and maps text, structured content, images, links and tool errors', async () => {
    newRegistry();
    await registry.servers.add(stdioConfig('exec'));
    expect(await registry.tools.execute('mcp__exec__add', { a: 1, b: 2 })).toEqual({
      content: [{ type: 'text', text: '3' }],
      structured: { sum: 3 },
    });
    expect((await registry.tools.execute('mcp__exec__image', {})).content).toEqual([{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }]);
    expect((await registry.tools.execute('mcp__exec__link', {})).content[0]).toEqual({
      type: 'text',
      text: 'Resource link: readme <fixture://readme> (text/plain, The readme)',
    });
    expect(await registry.tools.execute('mcp__exec__fail', {})).toMatchObject({ isError: true, content: [{ type: 'text', text: 'it failed on purpose' }] });
    expect(await registry.tools.execute('mcp__exec__nope', {})).toMatchObject({ isError: true, content: [{ text: 'Unknown tool: mcp__exec__nope' }] });
  });

  it('rejects invalid arguments with ajv before they reach the server', async () => {
    newRegistry();
    await registry.servers.add(stdioConfig('strict'));
    const result = await registry.tools.execute('mcp__strict__add', { a: 'one' });
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain('Invalid arguments for mcp__strict__add');
    expect(text).toContain('a: must be number');
    expect(text).toContain("(root): must have required property 'b'");
    const extra = await registry.tools.execute('mcp__strict__echo', { text: 'x', loud: true });
    expect((extra.content[0] as { text: string }).text).toContain('must NOT have additional properties (loud)');
    expect((await registry.tools.execute('mcp__strict__call_count', { tool: 'add' })).content).toEqual([{ type: 'text', text: '0' }]);
    expect((await registry.tools.execute('mcp__strict__call_count', { tool: 'echo' })).content).toEqual([{ type: 'text', text: '0' }]);
  });

  it('indexes tools, resources and prompts and finds them by intent', async () => {
    newRegistry();
    await registry.servers.add(stdioConfig('idx'));
    const echo = await registry.tools.search('echo text back', { limit: 3 });
    expect(echo[0]?.tool.name).toBe('mcp__idx__echo');
    const mixed = await registry.discoverRelevant('release notes changelog', { limit: 5 });
    expect(mixed[0]).toMatchObject({ kind: 'resource', resource: { uri: 'fixture://changelog' } });
    const prompts = await registry.discoverRelevant('write a greeting', { limit: 5, kinds: ['prompt'] });
    expect(prompts[0]).toMatchObject({ kind: 'prompt', prompt: { name: 'mcp__idx__greet', mcpName: 'greet' } });
    const templates = await registry.resources.search('note by id', { limit: 5 });
    expect(templates.some((hit) => hit.kind === 'resource-template')).toBe(true);
  });

  it('reads text and binary resources, resolves templates, gets prompts and delivers resource updates', async () => {
    newRegistry();
    await registry.servers.add(stdioConfig('res'));
    expect(registry.resources.list().map((resource) => resource.uri)).toContain('fixture://logo.png');
    expect(registry.resources.templates()).toMatchObject([{ uriTemplate: 'fixture://notes/{id}', serverId: 'res' }]);
    expect((await registry.resources.read('fixture://readme')).contents[0]).toMatchObject({ text: expect.stringContaining('readme') });
    expect((await registry.resources.read('fixture://logo.png')).contents[0]).toMatchObject({ blob: PNG_BASE64 });
    expect((await registry.resources.read('fixture://notes/7')).contents[0]).toMatchObject({ text: 'note 7' });
    await expect(registry.resources.read('other://x')).rejects.toMatchObject({ code: 'not_found' });
    const prompt = await registry.prompts.get('mcp__res__greet', { name: 'Lin' });
    expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'Hi Lin!' });
    const updates: string[] = [];
    const unsubscribe = await registry.resources.subscribe('fixture://readme', (uri) => updates.push(uri));
    await waitFor(() => updates.length > 0, 10_000, 'a resources/updated notification');
    expect(updates[0]).toBe('fixture://readme');
    await unsubscribe();
  });

  it('re-indexes only the server whose list changed', async () => {
    const recording = recordingIndex(index);
    newRegistry({ index: recording });
    await registry.servers.add(stdioConfig('alpha'));
    await registry.servers.add(stdioConfig('beta'));
    await registry.idle();
    recording.synced.length = 0;
    await registry.tools.execute('mcp__alpha__add_tool', { name: 'quantum_teleporter', description: 'Teleports quantum states between labs' });
    await waitFor(() => registry.tools.get('mcp__alpha__quantum_teleporter') !== undefined, 10_000, 'the new tool');
    await registry.idle();
    expect(recording.synced).toEqual(['mcp:alpha']);
    expect((await registry.tools.search('teleport quantum states', { limit: 1 }))[0]?.tool.name).toBe('mcp__alpha__quantum_teleporter');
    expect((await registry.tools.execute('mcp__alpha__quantum_teleporter', {})).content).toEqual([{ type: 'text', text: 'quantum_teleporter ran' }]);
    expect(registry.tools.get('mcp__beta__quantum_teleporter')).toBeUndefined();
  });

  it('a session server named like a global one is the session\'s alone: the global one serves every other session', async () => {
    newRegistry();
    await registry.servers.add(stdioConfig('git-hub'));
    // Another spelling of the same tool prefix (mcp__git_hub__) is the same name to a model.
    await registry.servers.add(stdioConfig('git_hub'), { sessionId: 's1', cwd: '/tmp' });
    const servers = (scope: { sessionId?: string }) => registry.servers.list(scope).map((server) => `${server.sessionId ?? '-'}:${server.id}`);
    expect(servers({ sessionId: 's1' })).toEqual(['s1:git_hub']);
    expect(servers({ sessionId: 's2' })).toEqual(['-:git-hub']);
    expect(registry.tools.resolve('mcp__git_hub__echo', { sessionId: 's1' })).toEqual({ serverId: 'git_hub', toolName: 'echo' });
    expect(registry.tools.resolve('mcp__git_hub__echo', { sessionId: 's2' })).toEqual({ serverId: 'git-hub', toolName: 'echo' });
    expect(registry.tools.list({ sessionId: 's1' }).filter((tool) => tool.name === 'mcp__git_hub__echo')).toHaveLength(1);
    expect((await registry.tools.execute('mcp__git_hub__roots', {}, { sessionId: 's1' })).content).toEqual([{ type: 'text', text: 'file:///tmp' }]);
    expect(events).toContainEqual({ type: 'server-shadowed', serverId: 'git_hub', sessionId: 's1', shadowed: 'git-hub' });
    // Within one scope two servers named alike are still refused.
    await expect(registry.servers.add(stdioConfig('git.hub'), { sessionId: 's1' })).rejects.toMatchObject({ code: 'duplicate_server' });
    await expect(registry.servers.add(stdioConfig('git.hub'))).rejects.toMatchObject({ code: 'duplicate_server' });
    await registry.closeSession('s1');
    expect(servers({ sessionId: 's1' })).toEqual(['-:git-hub']);
  });

  it('keeps session servers to their session and closes them with it', async () => {
    newRegistry();
    await registry.servers.add(stdioConfig('shared'));
    const info = await registry.servers.add(stdioConfig('mine'), { sessionId: 's1', cwd: '/tmp' });
    expect(info.sessionId).toBe('s1');
    expect(registry.tools.get('mcp__mine__echo', { sessionId: 's1' })).toBeDefined();
    expect(registry.tools.get('mcp__mine__echo', { sessionId: 's2' })).toBeUndefined();
    expect(registry.tools.get('mcp__mine__echo')).toBeUndefined();
    expect(registry.tools.get('mcp__shared__echo', { sessionId: 's1' })).toBeDefined();
    expect((await registry.tools.search('echo text back', { sessionId: 's2', limit: 20 })).map((match) => match.tool.name)).not.toContain(
      'mcp__mine__echo',
    );
    // The same server id may serve another session at the same time.
    await registry.servers.add(stdioConfig('mine'), { sessionId: 's2' });
    expect((await registry.tools.execute('mcp__mine__roots', {}, { sessionId: 's1' })).content).toEqual([{ type: 'text', text: 'file:///tmp' }]);
    await registry.closeSession('s1');
    expect(registry.servers.list().map((server) => `${server.sessionId ?? '-'}:${server.id}`).sort()).toEqual(['-:shared', 's2:mine']);
    expect(registry.tools.get('mcp__mine__echo', { sessionId: 's1' })).toBeUndefined();
    expect(index.count('mcp:s1:mine')).toBe(0);
    expect(index.count('mcp:s2:mine')).toBeGreaterThan(0);
    expect(events).toContainEqual(expect.objectContaining({ type: 'server-status', serverId: 'mine', sessionId: 's1', status: 'closed' }));
  });

  it("releases what prepareServer set up once the server's process is gone, and when the server is refused", async () => {
    const released: Array<{ id: string; serverAlive: boolean }> = [];
    let server: number | undefined;
    newRegistry({
      prepareServer: (config) => ({
        config,
        release: async () => void released.push({ id: config.id, serverAlive: server !== undefined && isAlive(server) }),
      }),
    });
    await registry.servers.add(stdioConfig('held'));
    [server] = childProcesses(process.pid, /fixture-server\.mjs --name held\b/);
    expect(server).toBeDefined();
    // Refused (a second server of that id): what its preparation set up is released at once; the first runs on.
    await expect(registry.servers.add(stdioConfig('held'))).rejects.toMatchObject({ code: 'duplicate_server' });
    expect(released).toEqual([{ id: 'held', serverAlive: true }]);
    // Removed: released once the process the client spawned has exited (nothing may still bind what goes).
    await registry.servers.remove('held');
    expect(released).toEqual([
      { id: 'held', serverAlive: true },
      { id: 'held', serverAlive: false },
    ]);
  });

  it('a session closed while its server is still being prepared leaves no server behind: the add is refused and what was prepared is released', async () => {
    let go!: () => void;
    const prepared = new Promise<void>((resolve) => (go = resolve));
    const released: string[] = [];
    newRegistry({
      prepareServer: async (config) => {
        await prepared;
        return { config, release: async () => void released.push(config.id) };
      },
    });
    const adding = registry.servers.add(stdioConfig('late'), { sessionId: 's1' });
    await registry.closeSession('s1');
    go();
    await expect(adding).rejects.toMatchObject({ code: 'session_closed', message: expect.stringContaining('closed') });
    expect(released).toEqual(['late']);
    expect(registry.servers.get('late', { sessionId: 's1' })).toBeUndefined();
    expect(childProcesses(process.pid, /fixture-server\.mjs --name late\b/)).toEqual([]);
    // The session's id may open again (a load): its servers connect as before.
    await registry.servers.add(stdioConfig('late'), { sessionId: 's1' });
    expect(registry.servers.get('late', { sessionId: 's1' })).toBeDefined();
  });

  it('turns a hanging call into a timeout error result; the server keeps serving', async () => {
    newRegistry();
    await registry.servers.add(stdioConfig('hangs', { timeoutMs: 1_500 }));
    const result = await registry.tools.execute('mcp__hangs__hang', {});
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/did not answer tools\/call in time/);
    expect((await registry.tools.execute('mcp__hangs__echo', { text: 'alive' })).content).toEqual([{ type: 'text', text: 'echo: alive' }]);
  });

  it('recovers from a crash mid-call: the next call reaches the restarted server', async () => {
    newRegistry();
    await registry.servers.add(stdioConfig('phoenix'));
    const crashed = await registry.tools.execute('mcp__phoenix__crash', {});
    expect(crashed.isError).toBe(true);
    expect((crashed.content[0] as { text: string }).text).toMatch(/closed the connection/);
    expect((await registry.tools.execute('mcp__phoenix__echo', { text: 'again' })).content).toEqual([{ type: 'text', text: 'echo: again' }]);
    expect(registry.servers.get('phoenix')?.status).toBe('connected');
  });

  it('reports a server that cannot start and keeps the others working', async () => {
    newRegistry({ reconnect: { maxAttempts: 0 } });
    await registry.servers.add(stdioConfig('good'));
    const bad = mcpServerSchema.parse({ id: 'bad', transport: 'stdio', command: '/nonexistent/server' });
    await expect(registry.servers.add(bad)).rejects.toMatchObject({ code: 'connect_failed', serverId: 'bad' });
    expect(registry.servers.get('bad')?.status).toBe('failed');
    expect(await registry.tools.execute('mcp__good__echo', { text: 'fine' })).toEqual({ content: [{ type: 'text', text: 'echo: fine' }] });
    await expect(registry.servers.add(stdioConfig('good'))).rejects.toMatchObject({ code: 'duplicate_server' });
  });

  it('registers in-process tools, resources and prompts next to server ones', async () => {
    newRegistry();
    await registry.tools.register(
      defineTool({
        name: 'brew_coffee',
        description: 'Brews a cup of coffee with the office espresso machine',
        parameters: z.object({ size: z.enum(['small', 'large']) }),
        risk: 'external',
        execute: async (args) => textResult(`brewing a ${args.size} coffee`),
      }),
      { group: 'Office appliances' },
    );
    await registry.resources.register({
      uri: 'memo://lunch',
      name: 'lunch-menu',
      description: 'What the canteen serves today',
      read: async () => ({ contents: [{ uri: 'memo://lunch', text: 'soup' }] }),
    });
    await registry.prompts.register({
      name: 'standup',
      description: 'Drafts a daily standup update',
      get: async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'standup!' } }] }),
    });
    expect((await registry.tools.search('make me an espresso coffee', { limit: 1 }))[0]?.tool.name).toBe('brew_coffee');
    expect(await registry.tools.execute('brew_coffee', { size: 'large' })).toEqual({ content: [{ type: 'text', text: 'brewing a large coffee' }] });
    expect((await registry.tools.execute('brew_coffee', { size: 'huge' })).isError).toBe(true);
    expect((await registry.discoverRelevant('canteen menu today', { limit: 1 }))[0]).toMatchObject({ kind: 'resource', resource: { uri: 'memo://lunch' } });
    expect((await registry.resources.read('memo://lunch')).contents[0]).toMatchObject({ text: 'soup' });
    expect((await registry.prompts.get('standup')).messages[0].content).toEqual({ type: 'text', text: 'standup!' });
    registry.tools.unregister('brew_coffee');
    expect(registry.tools.get('brew_coffee')).toBeUndefined();
    expect(await registry.tools.search('make me an espresso coffee', { limit: 1 })).toEqual([]);
  });
});
