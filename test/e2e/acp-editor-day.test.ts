import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { sharedAcpBed } from '../helpers/shared-acp-bed.js';
import { waitFor } from '../helpers/wait-for.js';
import { countProcesses } from '../helpers/count-processes.js';
import { agentText, initialize, startAcpCli } from '../helpers/acp-cli.js';
import { startScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';

/**
 * An editor user's day on the ACP face (stdio, v1): what the conformance kit does not look at.
 * The tests share one CLI, each in sessions and folders of its own, with a config folder of the
 * CLI's own for the "always" answers.
 */
const bed = sharedAcpBed({ prefix: 'plaited-editor-day-' });

const fixtureServer = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));

/**
 * Arguments of 100 KiB each (under the 128 KiB one may have) that together pass this machine's
 * ARG_MAX, which follows the stack limit (a quarter of it; ~2 MB at the usual 8 MB).
 */
function pastArgMax(): string[] {
  const argMax = Number(execFileSync('getconf', ['ARG_MAX'], { encoding: 'utf8' }));
  if (!(argMax > 0 && argMax <= 64 * 1024 * 1024)) throw new Error(`ARG_MAX is ${argMax}: this test needs a finite stack limit (ulimit -s 8192) to pass it`);
  return Array.from({ length: Math.ceil(argMax / (100 * 1024)) + 4 }, () => 'z'.repeat(100 * 1024));
}
const mcpServer = (name: string): acp.McpServer => ({ name, command: process.execPath, args: [fixtureServer, '--name', name], env: [] });
/** The MCP servers whose tools the model was offered in request `index`. */
const offeredServers = (index: number) => [...new Set((bed.server.requests[index]!.tools ?? []).map((tool) => /^mcp__(.+?)__/.exec(tool.function.name)?.[1]).filter(Boolean))];

const pathOf = (request: acp.RequestPermissionRequest) => (request.toolCall.rawInput as { path: string }).path;

describe('an editor user over ACP', () => {
  const shared = bed.shared({ env: { XDG_CONFIG_HOME: bed.project() } });

  it('"always allow anywhere in the project folder" does not cover a write in an additional directory', async () => {
    const cwd = bed.project();
    const extra = mkdtempSync(join(tmpdir(), 'plaited-editor-day-extra-'));
    const asked: acp.RequestPermissionRequest[] = [];
    const { cli } = shared;
    const { sessionId } = await cli.agent.request('session/new', { cwd, additionalDirectories: [extra], mcpServers: [] });
    const answer = (request: acp.RequestPermissionRequest): acp.RequestPermissionResponse => {
      asked.push(request);
      const folder = request.options.find((option) => option.optionId === 'allow-always-folder');
      return { outcome: { outcome: 'selected', optionId: asked.length === 1 ? folder!.optionId : 'reject-once' } };
    };
    shared.onPermission(sessionId, answer);
    bed.server.push(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'inside.txt', content: 'in' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'sub/also-inside.txt', content: 'in' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: join(extra, 'outside.txt'), content: 'out' } }] },
      { text: 'Done.' },
    );
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write three files' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(asked[0]!.options.find((option) => option.optionId === 'allow-always-folder')?.name).toContain('anywhere in the project folder');
    // The project's files are covered by the answer; the extra folder is not the project: it asks.
    expect(asked.map(pathOf)).toEqual(['inside.txt', join(extra, 'outside.txt')]);
    expect(readFileSync(join(cwd, 'sub/also-inside.txt'), 'utf8')).toBe('in');
    expect(existsSync(join(extra, 'outside.txt'))).toBe(false);
  });
});

describe('a file mentioned from outside the project', () => {
  const shared = bed.shared({});

  it('the refusal to read it names the ways to let the agent reach it', async () => {
    const cwd = bed.project();
    const elsewhere = mkdtempSync(join(tmpdir(), 'plaited-editor-day-elsewhere-'));
    writeFileSync(join(elsewhere, 'spec.md'), 'the spec');
    const sessionId = await shared.session(cwd);
    bed.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: join(elsewhere, 'spec.md') } }] }, { text: 'I cannot reach it.' });
    const prompt: acp.ContentBlock[] = [
      { type: 'text', text: 'summarise ' },
      { type: 'resource_link', uri: `file://${join(elsewhere, 'spec.md')}`, name: 'spec.md' },
    ];
    expect((await shared.cli.agent.request('session/prompt', { sessionId, prompt })).stopReason).toBe('end_turn');
    const result = JSON.stringify(bed.server.requests.at(-1)!.messages.filter((message) => message.role === 'tool'));
    expect(result).toContain('is outside the workspace');
    expect(result).not.toContain('the spec');
    expect(result).toContain('additional directory');
    expect(result).toContain('agent.allowedRoots');
  });
});

describe('an empty prompt', () => {
  const shared = bed.shared({});

  it('is refused with -32602 naming the cause, reaches no model and is not stored; the session goes on', async () => {
    const cwd = bed.project();
    const sessionId = await shared.session(cwd);
    const before = bed.server.requests.length;
    for (const prompt of [[], [{ type: 'text', text: '' }], [{ type: 'text', text: '  \n\t' }]] as acp.ContentBlock[][]) {
      await expect(shared.cli.agent.request('session/prompt', { sessionId, prompt })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('prompt is empty'),
      });
    }
    expect(bed.server.requests.length).toBe(before);
    bed.server.push({ text: 'Hello.' });
    expect((await shared.cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).stopReason).toBe('end_turn');
    const users = bed.server.requests.at(-1)!.messages.filter((message) => message.role === 'user');
    expect(users.map((message) => message.content)).toEqual(['hi']);
  });
});

describe('an editor restarted with other MCP servers', () => {
  it('session/load and session/resume connect the MCP servers the editor names now, not the ones of session/new', async () => {
    const cwd = bed.project();
    const first = bed.start(cwd);
    await initialize(first);
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [mcpServer('removed')] });
    bed.server.push({ text: 'one' });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    expect(offeredServers(bed.server.requests.length - 1)).toEqual(['removed']);
    await bed.closeNow(first);

    // The user removed that server and added another in the editor's settings, then reopened the thread.
    const second = bed.start(cwd);
    await initialize(second);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [mcpServer('added')] });
    bed.server.push({ text: 'two' });
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    expect(offeredServers(bed.server.requests.length - 1)).toEqual(['added']);
    await bed.closeNow(second);

    // A resume that names none keeps the list the load stored; one that names a list replaces it.
    const third = bed.start(cwd);
    await initialize(third);
    await third.agent.request('session/resume', { sessionId, cwd });
    bed.server.push({ text: 'three' });
    await third.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and again' }] });
    expect(offeredServers(bed.server.requests.length - 1)).toEqual(['added']);
    await bed.closeNow(third);

    const fourth = bed.start(cwd);
    await initialize(fourth);
    await fourth.agent.request('session/resume', { sessionId, cwd, mcpServers: [] });
    bed.server.push({ text: 'four' });
    await fourth.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'last' }] });
    expect(offeredServers(bed.server.requests.length - 1)).toEqual([]);
  }, 60_000);
});

describe('a sub-agent working for the editor\'s session', () => {
  it('"Allow … for this session" answered in the session covers the sub-agent\'s calls, and an answer to the sub-agent\'s question covers the session', async () => {
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agents: { worker: { description: 'Runs commands', systemPrompt: 'You are the WORKER.', tools: ['bash'] } } }));
    const asked: acp.RequestPermissionRequest[] = [];
    const cli = bed.start(cwd, {
      env: { XDG_CONFIG_HOME: bed.project() },
      onPermission: (request) => {
        asked.push(request);
        const session = request.options.find((option) => option.optionId === 'allow-session');
        return { outcome: { outcome: 'selected', optionId: session!.optionId } };
      },
    });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push(
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo parent-first' } }] },
      { toolCalls: [{ name: 'task', arguments: { agent: 'worker', prompt: 'run the commands', description: 'work' } }] },
      // The sub-agent's steps: the command the session allowed, then one of its own.
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo parent-first' } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo child-first' } }] },
      { text: 'Worker done.' },
      // The session again: the command allowed on the sub-agent's question.
      { toolCalls: [{ name: 'bash', arguments: { command: 'echo child-first' } }] },
      { text: 'All done.' },
    );
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'work with a helper' }] });
    expect(response.stopReason).toBe('end_turn');
    // Every question is shown in the user's session, so "for this session" means that session, sub-agents included.
    expect(asked.map((request) => request.sessionId)).toEqual([sessionId, sessionId]);
    expect(asked.map((request) => (request.toolCall.rawInput as { command: string }).command)).toEqual(['echo parent-first', 'echo child-first']);
    const results = JSON.stringify(bed.server.requests.at(-1)!.messages.filter((message) => message.role === 'tool'));
    expect(results).toContain('child-first');
  }, 60_000);
});

describe('a sub-agent uses the MCP servers the editor gave the session', () => {
  it('is offered their tools, calls one, and the session is offered them still', async () => {
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agents: { helper: { description: 'Helps', systemPrompt: 'You are the HELPER.' } } }));
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [mcpServer('editors')] });
    bed.server.push(
      { toolCalls: [{ name: 'task', arguments: { agent: 'helper', prompt: 'echo it', description: 'echo' } }] },
      { toolCalls: [{ name: 'mcp__editors__echo', arguments: { text: 'from the sub-agent' } }, { name: 'read_resource', arguments: { uri: 'fixture://readme' } }] },
      { text: 'Echoed.' },
      { text: 'Done.' },
    );
    const before = bed.server.requests.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'have a helper echo it' }] });
    expect(response.stopReason).toBe('end_turn');
    // The sub-agent's two requests, then the session's last: each offered the editor's server.
    expect([1, 2, 3].map((step) => offeredServers(before + step))).toEqual([['editors'], ['editors'], ['editors']]);
    const results = JSON.stringify(bed.server.requests[before + 2]!.messages.filter((message) => message.role === 'tool'));
    expect(results).toContain('from the sub-agent');
    // Its resources too: the sub-agent reads the editor's server's readme.
    expect(results).toContain('Fixture readme: call echo to echo.');
  }, 60_000);
});

describe('a sub-agent sees the session\'s workspace', () => {
  it('reads a file in the session\'s additional directory, on the model picked for the session', async () => {
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(
      join(cwd, '.plaited/config.json'),
      JSON.stringify({
        agent: { models: [{ name: 'big', model: 'openai-compatible:big-model' }] },
        agents: { reader: { description: 'Reads files', systemPrompt: 'You are the READER.', tools: ['read_file'] } },
      }),
    );
    const extra = mkdtempSync(join(tmpdir(), 'plaited-editor-day-extra-'));
    writeFileSync(join(extra, 'notes.txt'), 'the extra folder speaks');
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, additionalDirectories: [extra], mcpServers: [] });
    await cli.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'big' });
    bed.server.push(
      { toolCalls: [{ name: 'task', arguments: { agent: 'reader', prompt: 'read the notes', description: 'read' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: join(extra, 'notes.txt') } }] },
      { text: 'The notes say: the extra folder speaks.' },
      { text: 'Done.' },
    );
    const before = bed.server.requests.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'have the reader read the notes' }] });
    expect(response.stopReason).toBe('end_turn');
    const turn = bed.server.requests.slice(before);
    const reader = turn.filter((request) => JSON.stringify(request.messages[0]).includes('You are the READER.'));
    expect(reader).toHaveLength(2);
    expect(JSON.stringify(reader[1]!.messages.filter((message) => message.role === 'tool'))).toContain('the extra folder speaks');
    expect(turn.map((request) => request.model)).toEqual(['big-model', 'big-model', 'big-model', 'big-model']);
  }, 60_000);
});

describe('a paste larger than the model\'s context', () => {
  const tooLong = {
    status: 400,
    errorBody: {
      error: {
        message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 524310 tokens.",
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
      },
    },
  };

  it('is refused with what happened, and does not make every later prompt of the session fail, before or after a restart', async () => {
    const cwd = bed.project();
    const first = bed.start(cwd);
    await initialize(first);
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ text: 'Hello.' });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'before the paste' }] });
    const paste = `${'log line\n'.repeat(220_000)}`;
    bed.server.push(tooLong);
    await expect(first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: paste }] })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('Your message was left out of the conversation'),
    });
    const sent = () => JSON.stringify(bed.server.requests.at(-1)!.messages);
    bed.server.push({ text: 'Go on.' });
    expect((await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'a short question' }] })).stopReason).toBe('end_turn');
    expect(sent()).not.toContain('log line');
    expect(sent()).toContain('before the paste');
    expect(sent()).toContain('did not fit the model');
    expect(sent()).toContain('a short question');
    await bed.closeNow(first);

    const second = bed.start(cwd);
    await initialize(second);
    await second.agent.request('session/resume', { sessionId, cwd });
    bed.server.push({ text: 'Still fine.' });
    expect((await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'after a restart' }] })).stopReason).toBe('end_turn');
    expect(sent()).not.toContain('log line');
    expect(sent()).toContain('a short question');
  }, 60_000);
});

/**
 * The messages `send` writes, in one write to the agent's stdin: "right behind" as the agent reads
 * it. Written one by one, a loaded machine could let the agent read the prompt alone and ask the
 * model before the stop was even sent, a race no agent can win (it failed 6 in 150 under load).
 */
async function sentTogether<T extends unknown[]>(cli: ReturnType<typeof startAcpCli>, send: () => [...T]): Promise<T> {
  cli.child.stdin.cork();
  const sent = send();
  // The SDK hands its messages to the stream in microtasks: all are in the corked buffer by the next macrotask.
  await new Promise((resolve) => setImmediate(resolve));
  cli.child.stdin.uncork();
  return sent;
}

describe('stop pressed right after send', () => {
  it('a session/cancel or session/close that follows the prompt at once cancels the turn: nothing is written in accept-edits', async () => {
    // A model of its own: whether a cancelled turn asks it at all is the point, so no step is queued.
    const model = await startScriptedOpenAIServer((request) =>
      request.messages.at(-1)?.role === 'tool' ? { text: 'Written.' } : { toolCalls: [{ name: 'write_file', arguments: { path: `${request.messages.length}.txt`, content: 'x' } }] },
    );
    try {
      const cwd = bed.project();
      const cli = bed.track(startAcpCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', model.url] }));
      await initialize(cli);
      const stops: string[] = [];
      for (let attempt = 0; attempt < 6; attempt++) {
        const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
        await cli.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
        // As an editor sends them when the user presses stop at once: the cancel right behind the prompt.
        const [turn] = await sentTogether(cli, () => [
          cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write a file' }] }),
          cli.agent.notify('session/cancel', { sessionId }),
        ]);
        stops.push((await turn).stopReason);
      }
      expect(stops).toEqual(Array(6).fill('cancelled'));
      expect(readdirSync(cwd).filter((name) => name.endsWith('.txt'))).toEqual([]);

      // The window closed right after send: session/close cancels that prompt too, which answers first.
      for (let attempt = 0; attempt < 6; attempt++) {
        const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
        await cli.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
        const order: string[] = [];
        const [turn, closed] = await sentTogether(cli, () => [
          cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write a file' }] }),
          cli.agent.request('session/close', { sessionId }),
        ]);
        await Promise.all([turn.then((response) => order.push(`prompt ${response.stopReason}`)), closed.then(() => order.push('close'))]);
        expect(order).toEqual(['prompt cancelled', 'close']);
      }
      expect(readdirSync(cwd).filter((name) => name.endsWith('.txt'))).toEqual([]);
    } finally {
      await model.close();
    }
  }, 60_000);
});

describe('the MCP servers an editor gives a session', () => {
  /** A project whose config names a `github` server of its own (a catalog with one tool, `config_tool`). */
  const configured = (() => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-editor-day-servers-'));
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(join(cwd, 'config-catalog.json'), JSON.stringify([{ name: 'config_tool', description: 'The config server\'s tool' }]));
    writeFileSync(join(cwd, 'editor-catalog.json'), JSON.stringify([{ name: 'editor_tool', description: 'The editor server\'s tool' }]));
    const github = { id: 'github', transport: 'stdio', command: process.execPath, args: [fixtureServer, '--name', 'config-github', '--catalog', join(cwd, 'config-catalog.json')] };
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ mcp: { servers: [github] } }));
    return cwd;
  })();
  const shared = bed.shared({ cwd: configured });
  /** The MCP tools the model was offered in request `index`. */
  const offeredMcpTools = (index: number) => (bed.server.requests[index]!.tools ?? []).map((tool) => tool.function.name).filter((name) => name.startsWith('mcp__')).sort();

  it('a server named like a config server is the one its session uses; the config\'s stays for the other sessions, and both are told', async () => {
    const { cli } = shared;
    const cwd = bed.project();
    const editors = { ...mcpServer('github'), args: [fixtureServer, '--name', 'editor-github', '--catalog', join(configured, 'editor-catalog.json')] };
    const { sessionId: withEditors } = await cli.agent.request('session/new', { cwd, mcpServers: [editors] });
    const { sessionId: without } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ toolCalls: [{ name: 'mcp__github__editor_tool', arguments: {} }] }, { text: 'Used the editor\'s.' });
    const first = bed.server.requests.length;
    expect((await cli.agent.request('session/prompt', { sessionId: withEditors, prompt: [{ type: 'text', text: 'use github' }] })).stopReason).toBe('end_turn');
    expect(offeredMcpTools(first)).toEqual(['mcp__github__editor_tool']);
    expect(JSON.stringify(bed.server.requests[first + 1]!.messages.filter((message) => message.role === 'tool'))).toContain('editor_tool ran');
    expect(agentText(cli, withEditors)).toContain(
      'This session uses the MCP server "github" its client gave it (its tools mcp__github__*); the config\'s server "github" (mcp.servers) is left out of this session and stays for the others',
    );
    expect(agentText(cli, withEditors)).not.toContain('unavailable');

    bed.server.push({ toolCalls: [{ name: 'mcp__github__config_tool', arguments: {} }] }, { text: 'Used the config\'s.' });
    const second = bed.server.requests.length;
    expect((await cli.agent.request('session/prompt', { sessionId: without, prompt: [{ type: 'text', text: 'use github' }] })).stopReason).toBe('end_turn');
    expect(offeredMcpTools(second)).toEqual(['mcp__github__config_tool']);
    expect(JSON.stringify(bed.server.requests[second + 1]!.messages.filter((message) => message.role === 'tool'))).toContain('config_tool ran');
    expect(agentText(cli, without)).not.toContain('This session uses');
    // The operator's log says it too, with the session.
    expect(cli.stderr()).toContain(`MCP server "github" (session ${withEditors}) is the one this session uses; the config's "github" is left out of it and stays for the other sessions`);
  }, 60_000);

  it('session/load of a session open here swaps its servers for the ones named now, after the running turn, keeping the history', async () => {
    const { cli } = shared;
    const cwd = bed.project();
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [mcpServer('live_load_old')] });
    // The turn holds on its permission question while the editor, reopened, loads the session.
    let asked!: () => void;
    const question = new Promise<void>((resolve) => (asked = resolve));
    let allow!: () => void;
    shared.onPermission(sessionId, async (request) => {
      asked();
      await new Promise<void>((resolve) => (allow = resolve));
      return { outcome: { outcome: 'selected', optionId: request.options[0]!.optionId } };
    });
    bed.server.push({ toolCalls: [{ name: 'mcp__live_load_old__echo', arguments: { text: 'answered by the old server' } }] }, { text: 'Echoed.' });
    const first = bed.server.requests.length;
    const turn = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo it' }] });
    await question;
    await cli.agent.request('session/load', { sessionId, cwd, mcpServers: [mcpServer('live_load_new')] });
    allow();
    // The running turn's call reached the server it was made for: the swap waited for the turn.
    expect((await turn).stopReason).toBe('end_turn');
    expect(JSON.stringify(bed.server.requests[first + 1]!.messages.filter((message) => message.role === 'tool'))).toContain('echo: answered by the old server');

    bed.server.push({ text: 'New servers.' });
    const second = bed.server.requests.length;
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] })).stopReason).toBe('end_turn');
    expect(offeredServers(second).sort()).toEqual(['github', 'live_load_new']);
    // The history is whole, and the old server's process is gone.
    expect(JSON.stringify(bed.server.requests[second]!.messages)).toContain('answered by the old server');
    await waitFor(() => countProcesses(/fixture-server\.mjs --name live_load_old\b/) === 0, 20_000, 'the old server to end');

    // With no turn running the swap is at once: a resume naming none leaves the session only the config's.
    await cli.agent.request('session/resume', { sessionId, cwd, mcpServers: [] });
    bed.server.push({ text: 'None of its own.' });
    const third = bed.server.requests.length;
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and again' }] })).stopReason).toBe('end_turn');
    expect(offeredServers(third)).toEqual(['github']);
    await waitFor(() => countProcesses(/fixture-server\.mjs --name live_load_new\b/) === 0, 20_000, 'the second server to end');
  }, 60_000);

  it('a 50 KB argument reaches a stdio server whole: it starts, is offered and answers', async () => {
    const { cli } = shared;
    const cwd = bed.project();
    // Written out whole by the server as its instructions: a long prompt, a JSON config inline.
    const long = `start ${'x'.repeat(50 * 1024)} end`;
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [{ ...mcpServer('long'), args: [fixtureServer, '--name', 'long', '--instructions', long] }] });
    bed.server.push({ toolCalls: [{ name: 'mcp__long__echo', arguments: { text: 'long-arg server answered' } }] }, { text: 'Echoed.' });
    const before = bed.server.requests.length;
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo it' }] })).stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).not.toContain('unavailable');
    expect(offeredMcpTools(before)).toContain('mcp__long__echo');
    expect(JSON.stringify(bed.server.requests[before + 1]!.messages.filter((message) => message.role === 'tool'))).toContain('long-arg server answered');
  }, 60_000);

  it('an argument, or a command line, past what the system takes is named with the server, the limit and the fix, not a bare E2BIG', async () => {
    const { cli } = shared;
    const cwd = bed.project();
    // One argument over Linux's 128 KiB for one, and arguments that are each fine but together pass ARG_MAX.
    const oneTooLong = { ...mcpServer('one_too_long'), args: [fixtureServer, '--instructions', 'y'.repeat(200 * 1024)] };
    const allTooLong = { ...mcpServer('all_too_long'), args: [fixtureServer, ...pastArgMax()] };
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [oneTooLong, allTooLong] });
    bed.server.push({ text: 'Still here.' });
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).stopReason).toBe('end_turn');
    await waitFor(() => (agentText(cli, sessionId).match(/unavailable/g) ?? []).length === 2, 20_000, 'both servers reported');
    const said = agentText(cli, sessionId);
    expect(said).toMatch(/MCP server "one_too_long" is unavailable: .*args\[2\] is 201 KiB long, over the 128 KiB the system takes for one; .*put the long value in a file/);
    expect(said).toMatch(/MCP server "all_too_long" is unavailable: server "all_too_long" could not start: its command line and environment are too long for the system \(spawn E2BIG\)\. .*ARG_MAX.*put the long value in a file/);
  }, 60_000);

  it('under the command sandbox too: a 50 KB argument reaches the server, and a command line past the system\'s limit is named', async () => {
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ adapters: { sandbox: { commands: true } } }));
    const cli = bed.start(cwd);
    await initialize(cli);
    const long = { ...mcpServer('long'), args: [fixtureServer, '--name', 'long', '--instructions', `start ${'x'.repeat(50 * 1024)} end`] };
    const allTooLong = { ...mcpServer('all_too_long'), args: [fixtureServer, ...pastArgMax()] };
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [long, allTooLong] });
    bed.server.push({ toolCalls: [{ name: 'mcp__long__echo', arguments: { text: 'sandboxed long-arg server answered' } }] }, { text: 'Echoed.' });
    const before = bed.server.requests.length;
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo it' }] })).stopReason).toBe('end_turn');
    expect(JSON.stringify(bed.server.requests[before + 1]!.messages.filter((message) => message.role === 'tool'))).toContain('sandboxed long-arg server answered');
    await waitFor(() => agentText(cli, sessionId).includes('all_too_long'), 20_000, 'the failed server reported');
    expect(agentText(cli, sessionId)).not.toContain('"long" is unavailable');
    expect(agentText(cli, sessionId)).toMatch(/MCP server "all_too_long" is unavailable: server "all_too_long" could not start: its command line and environment are too long for the system/);
  }, 60_000);
});
