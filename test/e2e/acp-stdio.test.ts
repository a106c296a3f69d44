import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { sharedAcpBed } from '../helpers/shared-acp-bed.js';
import { waitFor } from '../helpers/wait-for.js';
import { agentText, CLI, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { trustProjectConfig } from '../helpers/trust-config.js';

const bed = sharedAcpBed({ prefix: 'plaited-e2e-' });

const project = bed.project;

const start = bed.start;

/** Client capabilities and handlers of one session on the CLI that advertises fs and terminals. */
type ClientHandlers = {
  readTextFile?: (params: acp.ReadTextFileRequest) => acp.ReadTextFileResponse;
  createTerminal?: (params: acp.CreateTerminalRequest) => acp.CreateTerminalResponse;
  waitForExit?: (params: acp.WaitForTerminalExitRequest) => Promise<acp.WaitForTerminalExitResponse>;
  output?: (params: acp.TerminalOutputRequest) => acp.TerminalOutputResponse;
  release?: (params: acp.ReleaseTerminalRequest) => acp.ReleaseTerminalResponse;
};

async function newSession(cli: AcpCli, cwd: string, capabilities: acp.ClientCapabilities = {}) {
  await initialize(cli, capabilities);
  return cli.agent.request('session/new', { cwd, mcpServers: [] });
}

const toolUpdates = (cli: AcpCli, sessionId: string) =>
  cli.updates.filter((n) => n.sessionId === sessionId && (n.update.sessionUpdate === 'tool_call' || n.update.sessionUpdate === 'tool_call_update'));

/**
 * Independent tests share a CLI (a start is most of a test's CPU), each in a session of its own
 * with its own project folder, permission answers and updates; one CLI serves the tests of a
 * client that advertises fs and terminals, whose handlers answer per session. The restart test runs
 * last and restarts the plain CLI; a different model keeps a CLI of its own. Rules an "always" answer writes go to a config folder
 * of the shared CLI's own.
 */
describe('ACP over stdio, end to end', () => {
  const plain = bed.shared({ env: { XDG_CONFIG_HOME: project() } });
  const clientHandlers = new Map<string, ClientHandlers>();
  const handlerOf = <K extends keyof ClientHandlers>(sessionId: string, name: K): NonNullable<ClientHandlers[K]> => {
    const handler = clientHandlers.get(sessionId)?.[name];
    if (!handler) throw new Error(`session ${sessionId} has no ${name} handler`);
    return handler;
  };
  const withClient = bed.shared(
    {
      configureClient: (client) => {
        client.onRequest('fs/read_text_file', ({ params }) => handlerOf(params.sessionId, 'readTextFile')(params));
        client.onRequest('fs/write_text_file', () => ({}));
        client.onRequest('terminal/create', ({ params }) => handlerOf(params.sessionId, 'createTerminal')(params));
        client.onRequest('terminal/wait_for_exit', ({ params }) => handlerOf(params.sessionId, 'waitForExit')(params));
        client.onRequest('terminal/output', ({ params }) => handlerOf(params.sessionId, 'output')(params));
        client.onRequest('terminal/release', ({ params }) => handlerOf(params.sessionId, 'release')(params));
        client.onRequest('terminal/kill', () => ({}));
      },
    },
    { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  );

  it('initializes, opens a session and streams a plain answer', async () => {
    const cwd = project();
    const cli = plain.cli;
    const init = plain.init;
    expect(init.protocolVersion).toBe(acp.PROTOCOL_VERSION);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });
    expect(init.agentCapabilities?.mcpCapabilities?.http).toBe(true);
    const session = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    expect(session.modes?.availableModes.map((mode) => mode.id)).toEqual(['default', 'accept-edits', 'plan']);
    bed.server.push({ text: 'Hello from the scripted model.' });
    const response = await cli.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(agentText(cli, session.sessionId)).toBe('Hello from the scripted model.');
    // Offline, the default embedder is unavailable: a warning, never an error or a stack trace.
    expect(cli.stderr()).not.toMatch(/\] error:|\n\s+at /);
  });

  it('runs a write tool after the user grants permission, and shows the edit as a diff', async () => {
    const cwd = project();
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\n');
    const asked: acp.RequestPermissionRequest[] = [];
    const cli = plain.cli;
    const sessionId = await plain.session(cwd, (request) => {
      asked.push(request);
      return { outcome: { outcome: 'selected', optionId: 'allow-once' } };
    });
    bed.server.push({ toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'beta', new_string: 'gamma' } }] }, { text: 'Edited.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'change beta' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.toolCall.kind).toBe('edit');
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('alpha\ngamma\n');
    const updates = toolUpdates(cli, sessionId).map((n) => n.update as acp.ToolCallUpdate & { sessionUpdate: string });
    expect(updates[0]).toMatchObject({ sessionUpdate: 'tool_call', kind: 'edit', status: 'pending' });
    const done = updates.find((update) => update.status === 'completed');
    const diff = done?.content?.find((content) => content.type === 'diff');
    expect(diff).toMatchObject({ type: 'diff', path: join(cwd, 'notes.txt'), oldText: 'alpha\nbeta\n', newText: 'alpha\ngamma\n' });
  });

  it('a rejected call changes nothing and the model hears about it', async () => {
    const cwd = project();
    const cli = plain.cli;
    const sessionId = await plain.session(cwd, () => ({ outcome: { outcome: 'selected', optionId: 'reject-once' } }));
    const before = bed.server.requests.length;
    bed.server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'no' } }] }, { text: 'Understood.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write x' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(() => readFileSync(join(cwd, 'x.txt'))).toThrow();
    const failed = toolUpdates(cli, sessionId).find((n) => (n.update as acp.ToolCallUpdate).status === 'failed');
    expect(failed).toBeDefined();
    expect(JSON.stringify(bed.server.requests[before + 1]!.messages)).toContain('rejected');
  });

  it('allow-always is remembered: the second call is not asked about', async () => {
    const cwd = project();
    let asked = 0;
    const cli = plain.cli;
    // "Always" covers what its label names (issue 21): the folder option covers both files (this test's folder only).
    const sessionId = await plain.session(cwd, () => {
      asked++;
      return { outcome: { outcome: 'selected', optionId: 'allow-always-folder' } };
    });
    bed.server.push(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: '1' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: '2' } }] },
      { text: 'Both written.' },
    );
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write two files' }] });
    expect(asked).toBe(1);
    expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('2');
  });

  it('runs two parallel tool calls and feeds a tool error back to the model', async () => {
    const cwd = project();
    writeFileSync(join(cwd, 'one.txt'), 'first file');
    const cli = plain.cli;
    const sessionId = await plain.session(cwd);
    const before = bed.server.requests.length;
    bed.server.push(
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'one.txt' } },
          { name: 'read_file', arguments: { path: 'missing.txt' } },
        ],
      },
      { text: 'One worked, one did not.' },
    );
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read both' }] });
    const updates = toolUpdates(cli, sessionId).map((n) => n.update as acp.ToolCallUpdate);
    expect(updates.filter((update) => update.status === 'completed')).toHaveLength(1);
    expect(updates.filter((update) => update.status === 'failed')).toHaveLength(1);
    const followUp = bed.server.requests[before + 1]!.messages.filter((message) => message.role === 'tool');
    expect(followUp).toHaveLength(2);
    expect(JSON.stringify(followUp)).toContain('first file');
  });

  it('cancel during `bash sleep 30` ends the turn cancelled and leaves no child process', async () => {
    const cwd = project();
    const marker = `plaited-cancel-${process.pid}-${Date.now()}`;
    const cli = plain.cli;
    const sessionId = await plain.session(cwd);
    bed.server.push({ toolCalls: [{ name: 'bash', arguments: { command: `sleep 30 && echo ${marker}` } }] });
    const prompt = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'sleep' }] });
    await waitFor(() => toolUpdates(cli, sessionId).some((n) => (n.update as acp.ToolCallUpdate).status === 'in_progress'));
    await waitFor(() => spawnSync('pgrep', ['-f', marker]).status === 0);
    await cli.agent.notify('session/cancel', { sessionId });
    const response = await prompt;
    expect(response.stopReason).toBe('cancelled');
    await waitFor(() => spawnSync('pgrep', ['-f', marker]).status !== 0);
    expect(spawnSync('pgrep', ['-f', marker]).status).not.toBe(0);
  });

  it('answers a malformed line and an unknown method with JSON-RPC errors and keeps working', async () => {
    const cwd = project();
    const cli = plain.cli;
    const sessionId = await plain.session(cwd);
    const before = cli.rawResponses.length;
    cli.writeRaw('{"jsonrpc":"2.0","id":"raw-1","method":\n');
    cli.writeRaw('{"jsonrpc":"2.0","id":"raw-2","method":"no/such_method","params":{}}\n');
    cli.writeRaw('{"jsonrpc":"2.0","id":"raw-3","method":"session/prompt","params":{"sessionId":42}}\n');
    await waitFor(() => cli.rawResponses.length >= before + 3);
    const byId = new Map(cli.rawResponses.slice(before).map((message) => [String(message.id), message.error as { code: number }]));
    expect(byId.get('null')?.code).toBe(-32700);
    expect(byId.get('raw-2')?.code).toBe(-32601);
    expect(byId.get('raw-3')?.code).toBe(-32602);
    bed.server.push({ text: 'still fine' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ok?' }] });
    expect(response.stopReason).toBe('end_turn');
    // An unknown session is a protocol error, not a crash.
    await expect(cli.agent.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] })).rejects.toMatchObject({ code: -32002 });
  });

  it('reports an unreachable model as an error on the prompt, not a crash', async () => {
    const cwd = project();
    const cli = startAcpCli({ cwd, args: ['--model', 'openai-compatible:x', '--base-url', 'http://127.0.0.1:9/v1'] });
    bed.track(cli);
    const { sessionId } = await newSession(cli, cwd);
    await expect(cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).rejects.toMatchObject({ code: -32603 });
    const again = await cli.agent.request('session/list', {});
    expect(again.sessions.length).toBeGreaterThan(0);
  });

  it('reads files through the client when it advertises fs, so unsaved buffers are seen', async () => {
    const cwd = project();
    writeFileSync(join(cwd, 'buffer.txt'), 'on disk');
    const reads: string[] = [];
    const cli = withClient.cli;
    const sessionId = await withClient.session(cwd);
    clientHandlers.set(sessionId, {
      readTextFile: (params) => {
        reads.push(params.path);
        return { content: 'unsaved editor buffer' };
      },
    });
    const before = bed.server.requests.length;
    bed.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'buffer.txt' } }] }, { text: 'ok' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read buffer' }] });
    expect(reads).toEqual([join(cwd, 'buffer.txt')]);
    expect(JSON.stringify(bed.server.requests[before + 1]!.messages)).toContain('unsaved editor buffer');
  });

  it('runs bash in a client terminal when the client advertises terminals, and embeds it live', async () => {
    const cwd = project();
    const terminals = new Map<string, { output: string; exit: Promise<number | null> }>();
    const calls: string[] = [];
    const cli = withClient.cli;
    const sessionId = await withClient.session(cwd);
    clientHandlers.set(sessionId, {
      createTerminal: (params) => {
        calls.push('create');
        const id = `term-${terminals.size + 1}`;
        const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? cwd });
        const entry = { output: '', exit: new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code))) };
        child.stdout.on('data', (chunk: Buffer) => (entry.output += chunk.toString()));
        terminals.set(id, entry);
        return { terminalId: id };
      },
      waitForExit: async (params) => {
        calls.push('wait');
        return { exitCode: await terminals.get(params.terminalId)!.exit };
      },
      output: (params) => {
        calls.push('output');
        return { output: terminals.get(params.terminalId)!.output, truncated: false };
      },
      release: () => {
        calls.push('release');
        return {};
      },
    });
    const before = bed.server.requests.length;
    bed.server.push({ toolCalls: [{ name: 'bash', arguments: { command: 'echo from-the-client-terminal' } }] }, { text: 'ok' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run it' }] });
    expect(calls).toEqual(['create', 'wait', 'output', 'release']);
    const updates = toolUpdates(cli, sessionId).map((n) => n.update as acp.ToolCallUpdate);
    const live = updates.findIndex((update) => update.status === 'in_progress' && update.content?.some((c) => c.type === 'terminal'));
    const done = updates.findIndex((update) => update.status === 'completed');
    expect(live).toBeGreaterThanOrEqual(0);
    expect(live).toBeLessThan(done);
    expect(JSON.stringify(bed.server.requests[before + 1]!.messages)).toContain('from-the-client-terminal');
  });

  it('switches to accept-edits mode: edits run without asking', async () => {
    const cwd = project();
    let asked = 0;
    const cli = plain.cli;
    const sessionId = await plain.session(cwd, () => {
      asked++;
      return { outcome: { outcome: 'selected', optionId: 'reject-once' } };
    });
    await cli.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    bed.server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'auto.txt', content: 'auto' } }] }, { text: 'done' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write' }] });
    expect(asked).toBe(0);
    expect(readFileSync(join(cwd, 'auto.txt'), 'utf8')).toBe('auto');
    await expect(cli.agent.request('session/set_mode', { sessionId, modeId: 'yolo' })).rejects.toMatchObject({ code: -32602 });
  });

  it('after a restart, session/load replays the same history and the session continues', async () => {
    // The first run is the shared CLI, in the folder it started in: this test runs after every other test on it and closes it.
    const cwd = plain.cwd;
    writeFileSync(join(cwd, 'a.txt'), 'content of a');
    const first = plain.cli;
    const sessionId = await plain.session(cwd);
    bed.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'It says: content of a.' });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what is in a.txt?' }] });
    // Usage, session info and the slash commands (`/permissions` is always offered) describe the live session; they are not history and are not replayed.
    const history = (kind: string) => kind !== 'usage_update' && kind !== 'session_info_update' && kind !== 'available_commands_update';
    const live = first.updates
      .filter((n) => n.sessionId === sessionId)
      .map((n) => n.update.sessionUpdate)
      .filter(history);
    await plain.close();

    const second = start(cwd);
    await initialize(second);
    const listed = await second.agent.request('session/list', { cwd });
    expect(listed.sessions.map((info) => info.sessionId)).toContain(sessionId);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replayed = second.updates.filter((n) => n.sessionId === sessionId);
    expect(replayed[0]!.update).toMatchObject({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'what is in a.txt?' } });
    // The same kinds of updates in the same order (text chunks are merged when stored).
    const dedupe = (kinds: string[]) => kinds.filter((kind, i) => kind !== kinds[i - 1]);
    expect(dedupe(replayed.slice(1).map((n) => n.update.sessionUpdate).filter(history))).toEqual(dedupe(live));
    expect(agentText(second, sessionId)).toBe('It says: content of a.');

    const before = bed.server.requests.length;
    bed.server.push({ text: 'Still here.' });
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
    expect(JSON.stringify(bed.server.requests[before]!.messages)).toContain('content of a');
  });
});

describe('CLI', () => {
  it('rejects an invalid config with every bad field path, before speaking ACP', () => {
    const cwd = project();
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(
      join(cwd, '.plaited/config.json'),
      JSON.stringify({ agent: { maxSteps: -1, baseURL: 'not a url' }, mcp: { servers: [{ id: 'x', transport: 'stdio' }] }, bogus: 1 }),
    );
    trustProjectConfig(cwd);
    const result = spawnSync(process.execPath, [CLI], { cwd, input: '', encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    for (const path of ['agent.maxSteps', 'agent.baseURL', 'mcp.servers.0.command', 'bogus']) expect(result.stderr).toContain(path);
  });

  it('prints help and version on stdout (asked-for output), errors on stderr', () => {
    const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toContain('--adapter');
    const version = execFileSync(process.execPath, [CLI, '--version'], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    expect(version.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const bad = spawnSync(process.execPath, [CLI, '--nope'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--nope');
  });
});
