import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/storage/session-store.js';
import { startRawCli, type RawJsonRpcCli } from '../helpers/raw-json-rpc-cli.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';

let model: ScriptedOpenAIServer;
const clis: RawJsonRpcCli[] = [];

beforeEach(async () => {
  model = await startScriptedOpenAIServer();
});
afterEach(async () => {
  for (const cli of clis.splice(0)) {
    await cli.close();
    expect(cli.violations, 'stdout carries only JSON-RPC').toEqual([]);
  }
  await model.close();
});

function project(): string {
  return mkdtempSync(join(tmpdir(), 'plaited-hostile-acp-'));
}

function start(cwd: string): RawJsonRpcCli {
  const cli = startRawCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', model.url] });
  clis.push(cli);
  return cli;
}

/**
 * The tests that do not stop the process share one CLI (a start is most of a test's CPU), each in
 * sessions and folders of its own, on a model server that lives as long as it: after each test no
 * step it queued is left unused. What a test reads of the CLI's output is what came after its own
 * first line. The bad-image restart runs last on it and restarts it.
 */
let sharedModel: ScriptedOpenAIServer;
let shared: RawJsonRpcCli;
let sharedCwd: string;
beforeAll(async () => {
  sharedModel = await startScriptedOpenAIServer();
  sharedCwd = project();
  shared = startRawCli({ cwd: sharedCwd, args: ['--model', 'openai-compatible:scripted', '--base-url', sharedModel.url] });
  await ready(shared);
});
afterEach(() => {
  expect(shared.violations, 'stdout carries only JSON-RPC').toEqual([]);
  expect(sharedModel.pending(), 'scripted steps this test queued and no request took').toBe(0);
});
afterAll(async () => {
  await shared?.close();
  expect(shared?.violations, 'stdout carries only JSON-RPC').toEqual([]);
  await sharedModel?.close();
});

async function ready(cli: RawJsonRpcCli): Promise<void> {
  const init = await cli.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  expect(init.result).toBeDefined();
}

async function newSession(cli: RawJsonRpcCli, cwd: string): Promise<string> {
  const response = await cli.request('session/new', { cwd, mcpServers: [] });
  expect(response.error).toBeUndefined();
  return (response.result as { sessionId: string }).sessionId;
}

async function promptWorks(cli: RawJsonRpcCli, sessionId: string, reply = 'still here'): Promise<void> {
  (cli === shared ? sharedModel : model).push({ text: reply });
  const response = await cli.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'are you there?' }] });
  expect(response.result).toEqual({ stopReason: 'end_turn' });
}

describe('ACP stdio under hostile input (the built CLI)', () => {
  it('refuses /proc and other pseudo-filesystem folders at once, and still answers and stops on SIGTERM', async () => {
    const cwd = project();
    const cli = start(cwd);
    await ready(cli);
    for (const bad of ['/proc/self', '/proc', '/proc/self/cwd', '/sys', '/dev', '/dev/shm']) {
      const created = await cli.request('session/new', { cwd: bad, mcpServers: [] });
      expect(created.error?.code, bad).toBe(-32602);
      expect(created.error?.data).toMatchObject({ field: 'cwd' });
      const listed = await cli.request('session/list', { cwd: bad });
      expect(listed.error?.code, bad).toBe(-32602);
      const loaded = await cli.request('session/load', { sessionId: 'any', cwd: bad, mcpServers: [] });
      expect(loaded.error?.code, bad).toBe(-32602);
    }
    // The event loop is free: a normal request is answered, a session works, SIGTERM ends the process.
    await promptWorks(cli, await newSession(cli, cwd));
    cli.child.kill('SIGTERM');
    expect(await cli.exitedWithin(10_000)).not.toBe('alive');
  });

  it('refuses every session folder that is not an existing absolute normalized directory, creating nothing', async () => {
    const cwd = project();
    writeFileSync(join(cwd, 'a-file.txt'), 'not a folder');
    const missing = join(cwd, 'does', 'not', 'exist');
    const rootHadPlaited = existsSync('/.plaited');
    const cli = shared;
    const bad = [
      missing,
      '/',
      `${cwd}/../../..`,
      `${cwd}/./sub`,
      'relative/folder',
      '.',
      '',
      `${cwd}\nsecond-line`,
      `${cwd}\u0000nul`,
      `/${'x'.repeat(5000)}`,
      `/${'y'.repeat(300)}`,
      join(cwd, 'a-file.txt'),
      '/dev/null',
    ];
    for (const value of bad) {
      const response = await cli.request('session/new', { cwd: value, mcpServers: [] });
      expect(response.error?.code, JSON.stringify(value).slice(0, 80)).toBe(-32602);
      expect(response.error?.message).toContain('cwd');
      expect(response.error?.data).toMatchObject({ field: 'cwd' });
    }
    const wrongType = await cli.request('session/new', { cwd: 42, mcpServers: [] });
    expect(wrongType.error?.code).toBe(-32602);
    expect(existsSync(join(cwd, 'does'))).toBe(false);
    expect(existsSync('/.plaited')).toBe(rootHadPlaited);
    // A trailing slash is the same folder, and works.
    const ok = await cli.request('session/new', { cwd: `${cwd}/`, mcpServers: [] });
    expect((ok.result as { sessionId: string }).sessionId).toBeTruthy();
  });

  it('survives a 40 MB line and a deeply nested id with JSON-RPC errors, then serves a normal prompt', async () => {
    const cwd = project();
    const cli = shared;
    const before = { messages: cli.messages.length, stderr: cli.stderr().length };
    const sessionId = await newSession(cli, cwd);
    let deep = '1';
    for (let i = 0; i < 5000; i++) deep = `{"a":${deep}}`;
    await cli.write(`{"jsonrpc":"2.0","id":${deep},"method":"session/list","params":{}}\n`);
    await cli.write(`{"jsonrpc":"2.0","id":"deep-params","method":"session/list","params":{"x":${deep}}}\n`);
    const huge = `{"jsonrpc":"2.0","id":"huge","method":"session/prompt","params":{"sessionId":"${sessionId}","prompt":[{"type":"text","text":"${'a'.repeat(40 * 1024 * 1024)}"}]}}\n`;
    await cli.write(huge);
    // A huge line with no id at the start, and one that never ends before the next message.
    await cli.write(`{"params":{"x":"${'b'.repeat(34 * 1024 * 1024)}"},"jsonrpc":"2.0","id":"late-id","method":"x"}\n`);
    expect((await cli.response('deep-params')).error?.code).toBe(-32600);
    expect((await cli.response('huge')).error).toMatchObject({ code: -32600, data: { maxMessageBytes: 32 * 1024 * 1024 } });
    await promptWorks(cli, sessionId);
    // The deep id and the late id cannot be recovered: answered with id null, as JSON-RPC prescribes.
    const nullIds = cli.messages.slice(before.messages).filter((message) => !Array.isArray(message) && message.id === null && message.error);
    expect(nullIds.length).toBe(2);
    expect(cli.stderr().slice(before.stderr)).toMatch(/refused a \d+-byte message/);
  });

  it('answers invalid requests that carry an id with -32600 and that id, and a batch per JSON-RPC 2.0', async () => {
    const cwd = project();
    const cli = shared;
    const before = cli.messages.length;
    await cli.write('{"jsonrpc":"1.0","id":"v1","method":"session/list","params":{}}\n');
    await cli.write('{"id":"no-version","method":"session/list","params":{}}\n');
    await cli.write('{"jsonrpc":"2.0","id":"m-number","method":5}\n');
    await cli.write('{"jsonrpc":"2.0","id":"m-null","method":null}\n');
    await cli.write('{"jsonrpc":"2.0","id":"m-object","method":{"a":1}}\n');
    await cli.write('{"jsonrpc":"2.0","id":"p-string","method":"session/list","params":"x"}\n');
    await cli.write('[{"jsonrpc":"2.0","id":"b1","method":"session/list","params":{}},{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}},7]\n');
    for (const id of ['v1', 'no-version', 'm-number', 'm-null', 'm-object', 'p-string', 'b1']) {
      expect((await cli.response(id)).error?.code, id).toBe(-32600);
    }
    const batch = cli.messages.slice(before).find(Array.isArray) as Array<{ id: unknown }>;
    expect(batch.map((entry) => entry.id)).toEqual(['b1', null]);
    const init = await cli.request('initialize', { protocolVersion: 0, clientCapabilities: {} });
    expect((init.result as { protocolVersion: number }).protocolVersion).toBe(1);
    const future = await cli.request('initialize', { protocolVersion: 99, clientCapabilities: {} });
    expect((future.result as { protocolVersion: number }).protocolVersion).toBe(1);
    await promptWorks(cli, await newSession(cli, cwd));
  });

  it('pages session/list with opaque cursors and refuses any cursor it did not issue', async () => {
    const cwd = project();
    const cli = shared;
    for (let i = 0; i < 51; i++) await newSession(cli, cwd);
    const first = (await cli.request('session/list', { cwd })).result as { sessions: unknown[]; nextCursor?: string };
    expect(first.sessions).toHaveLength(50);
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = (await cli.request('session/list', { cwd, cursor: first.nextCursor })).result as { sessions: unknown[]; nextCursor?: string };
    expect(second.sessions).toHaveLength(1);
    expect(second.nextCursor).toBeUndefined();
    for (const cursor of ['1e9', '5.5', '0x10', '50', '-1', 'abc', '', Buffer.from('{"v":1,"offset":-5}').toString('base64url'), `${first.nextCursor}=`]) {
      const response = await cli.request('session/list', { cwd, cursor });
      expect(response.error?.code, cursor).toBe(-32602);
    }
  });

  it('a damaged session store: session/new and session/list name the fix, the file is left as it is, and moved aside the folder works', async () => {
    const cwd = project();
    const file = join(cwd, '.plaited', 'state', 'state.db');
    mkdirSync(dirname(file), { recursive: true });
    const damaged = Buffer.from('not a database, but it may be the only copy of someone\'s sessions '.repeat(40));
    writeFileSync(file, damaged);
    for (const [method, params] of [
      ['session/new', { cwd, mcpServers: [] }],
      ['session/list', { cwd }],
    ] as const) {
      const response = await shared.request(method, params);
      expect(response.error?.code, method).toBe(-32603);
      expect(response.error?.data, method).toMatchObject({ code: 'open_failed' });
      expect(response.error?.message, method).toContain(`session store ${file} is damaged`);
      expect(response.error?.message, method).toContain(`mv "${file}" "${file}.damaged"`);
      // Retrying cannot help, so the answer does not say to.
      expect(response.error?.message, method).not.toMatch(/retry/i);
    }
    expect(readFileSync(file).equals(damaged)).toBe(true);
    renameSync(file, `${file}.damaged`);
    await promptWorks(shared, await newSession(shared, cwd));
    expect(readFileSync(`${file}.damaged`).equals(damaged)).toBe(true);
  });

  it('refuses a bad image with -32602, never stores it, and the session keeps working after a restart', async () => {
    // The first run is the shared CLI, in the folder it started in: no test after this one uses it.
    const cwd = sharedCwd;
    let cli = shared;
    const before = sharedModel.requests.length;
    const sessionId = await newSession(cli, cwd);
    const badBlocks = [
      { type: 'image', data: '!!!not base64', mimeType: 'image/png' },
      { type: 'image', data: '', mimeType: 'image/png' },
      { type: 'image', data: 'aGVsbG8=', mimeType: 'not a mime' },
      { type: 'image', data: 'aGVsbG8=', mimeType: 'text/plain' },
      { type: 'audio', data: 'aGVsbG8=', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'file:///x', blob: '%%%' } },
      { type: 'resource', resource: { uri: '', text: 'x' } },
      { type: 'resource_link', uri: 'file:///x', name: '' },
    ];
    for (const block of badBlocks) {
      const response = await cli.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'look' }, block] });
      expect(response.error?.code, JSON.stringify(block)).toBe(-32602);
      expect(response.error?.message).toMatch(/prompt\[1\]/);
    }
    expect(sharedModel.requests.slice(before)).toHaveLength(0);
    await promptWorks(cli, sessionId, 'first answer');
    await cli.close();

    cli = start(cwd);
    await ready(cli);
    const loaded = await cli.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(loaded.error).toBeUndefined();
    const replayed = JSON.stringify(cli.messages);
    expect(replayed).not.toContain('not base64');
    await promptWorks(cli, sessionId, 'second answer');
  });

  it('recovers a session whose stored history already holds an undecodable image', async () => {
    const cwd = project();
    let cli = start(cwd);
    await ready(cli);
    const sessionId = await newSession(cli, cwd);
    await cli.close();
    clis.splice(clis.indexOf(cli), 1);
    // What an older version stored before prompts were validated.
    const store = new SessionStore(join(cwd, '.plaited', 'state', 'state.db'));
    store.appendMessages(sessionId, [{ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', image: '!!!not base64', mediaType: 'image/png' }] }]);
    store.appendEvents(sessionId, [{ type: 'user-message', sessionId, content: [{ type: 'text', text: 'see' }, { type: 'image', data: '!!!not base64', mimeType: 'image/png' }] }]);
    store.close();

    cli = start(cwd);
    await ready(cli);
    const before = cli.messages.length;
    expect((await cli.request('session/load', { sessionId, cwd, mcpServers: [] })).error).toBeUndefined();
    // The replay shows a note instead of data no client could decode.
    const replay = JSON.stringify(cli.messages.slice(before));
    expect(replay).not.toContain('not base64');
    expect(replay).toContain('was removed');
    await promptWorks(cli, sessionId);
    const sent = JSON.stringify(model.requests.at(-1)!.messages);
    expect(sent).not.toContain('not base64');
    expect(sent).toContain('was removed');
  });

  it('replays a prompt of 20,000 text blocks as one notification on session/load', async () => {
    const cwd = project();
    let cli = start(cwd);
    await ready(cli);
    const sessionId = await newSession(cli, cwd);
    const prompt = Array.from({ length: 20_000 }, (_, i) => ({ type: 'text', text: `${i} ` }));
    model.push({ text: 'a' }, { text: 'never used' });
    expect((await cli.request('session/prompt', { sessionId, prompt })).result).toEqual({ stopReason: 'end_turn' });
    await cli.close();
    clis.splice(clis.indexOf(cli), 1);

    cli = start(cwd);
    await ready(cli);
    const before = cli.messages.length;
    expect((await cli.request('session/load', { sessionId, cwd, mcpServers: [] })).error).toBeUndefined();
    const updates = cli.messages.slice(before).filter((message) => !Array.isArray(message) && message.method === 'session/update') as Array<{
      params: { update: { sessionUpdate: string; content?: { text?: string } } };
    }>;
    const userChunks = updates.filter((update) => update.params.update.sessionUpdate === 'user_message_chunk');
    expect(userChunks).toHaveLength(1);
    expect(userChunks[0]!.params.update.content?.text).toBe(prompt.map((block) => block.text).join(''));
    expect(updates.length).toBeLessThanOrEqual(5);
  });
});

