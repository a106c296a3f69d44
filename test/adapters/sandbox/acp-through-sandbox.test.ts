import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { McpServer } from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { countProcesses } from '../../helpers/count-processes.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../helpers/scripted-openai-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { agentText, initialize, startAcpCli, type AcpCli } from '../../helpers/acp-cli.js';
import { requireBuiltCli } from './acp-cli-harness.js';
import { FIXTURE_KEY, requirePrograms } from './sandbox-fixture.js';
import { closeChecked } from '../../helpers/close-checked.js';

const FILE_READER_SERVER = fileURLToPath(new URL('../../fixtures/sandbox/file-reader-mcp-server.mjs', import.meta.url));

/**
 * The spine's ACP scenarios again, with the whole agent under the sandbox
 * (`--adapter sandbox --adapter acp`): the protocol must pass through the
 * wrapper unchanged (every message is validated against the ACP schema), the
 * model on 127.0.0.1 must be reachable through the sandbox's proxy, and
 * cancellation must still leave no process behind.
 */

const WHOLE_AGENT = ['--adapter', 'sandbox', '--adapter', 'acp'];

/**
 * One sandboxed CLI serves the scenarios, each in a session of its own: a whole-agent start
 * (launcher, bubblewrap, the agent inside) is most of a scenario's cost. Its traffic is checked
 * against the ACP schema after each test, and no scripted step may be left over for the next.
 * The restart scenario comes last: it closes this CLI and starts the next one on its store.
 */
let server: ScriptedOpenAIServer;
let cli: AcpCli;
let cwd: string;
let home: string;
let initialized: Awaited<ReturnType<typeof initialize>>;
const restarted: AcpCli[] = [];

function start(env: Record<string, string>): AcpCli {
  return startAcpCli({
    cwd,
    args: [...WHOLE_AGENT, '--model', 'openai-compatible:scripted', '--base-url', server.url],
    env,
    onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow-once' } }),
  });
}

beforeAll(async () => {
  requirePrograms('bwrap', 'socat');
  requireBuiltCli();
  server = await startScriptedOpenAIServer();
  cwd = mkdtempSync(join(tmpdir(), 'plaited-sandboxed-e2e-'));
  // A home with a key in it, for the MCP server that must not read it.
  home = mkdtempSync(join(tmpdir(), 'plaited-sandboxed-home-'));
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_rsa'), FIXTURE_KEY);
  cli = start({ HOME: home });
  initialized = await initialize(cli);
});

afterEach(() => {
  expect(cli.validator.errors, cli.validator.errors.join('\n')).toEqual([]);
  expect(server.pending(), 'scripted steps no request took').toBe(0);
});

afterAll(async () => {
  await cli?.close();
  for (const next of restarted) {
    await closeChecked(next);
  }
  await server?.close();
});

async function newSession(mcpServers: McpServer[] = []): Promise<string> {
  return (await cli.agent.request('session/new', { cwd, mcpServers })).sessionId;
}

describe('ACP scenarios through the whole-agent sandbox', () => {
  it('initializes, opens a session and streams a plain answer from the model on 127.0.0.1', async () => {
    expect(initialized.protocolVersion).toBe(1);
    const sessionId = await newSession();
    const requests = server.requests.length;
    server.push({ text: 'Hello through the sandbox.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).toBe('Hello through the sandbox.');
    expect(server.requests.length - requests).toBe(1);
  });

  it('runs a write tool after the user grants permission (the project is writable for approved edits)', async () => {
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\n');
    const sessionId = await newSession();
    server.push({ toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'beta', new_string: 'gamma' } }] }, { text: 'Edited.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'change beta' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('alpha\ngamma\n');
  });

  it('cancel during `bash sleep 30` ends the turn cancelled and leaves no process', async () => {
    const marker = `plaited-sandbox-cancel-${process.pid}-${Date.now()}`;
    const sessionId = await newSession();
    server.push({ toolCalls: [{ name: 'bash', arguments: { command: `sleep 30 && echo ${marker}` } }] });
    const prompt = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'sleep' }] });
    await waitFor(() => countProcesses(new RegExp(marker)) > 0, 15_000, 'the sleep to start');
    await cli.agent.notify('session/cancel', { sessionId });
    const response = await prompt;
    expect(response.stopReason).toBe('cancelled');
    await waitFor(() => countProcesses(new RegExp(marker)) === 0, 15_000, 'the sleep to be gone');
  });

  it('a stdio MCP server of the sandboxed agent (started by the launcher) cannot read a denied path', async () => {
    const reader: McpServer = { name: 'reader', command: process.execPath, args: [FILE_READER_SERVER], env: [] };
    const sessionId = await newSession([reader]);
    server.push({ toolCalls: [{ name: 'mcp__reader__read_text', arguments: { path: join(home, '.ssh', 'id_rsa') } }] }, { text: 'Could not read it.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read my key' }] });
    expect(response.stopReason).toBe('end_turn');
    const finals = cli.updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'tool_call_update')
      .map((n) => n.update as { status?: string; content?: unknown });
    const done = finals.find((update) => update.status === 'failed' || update.status === 'completed');
    expect(done?.status, JSON.stringify(finals)).toBe('failed');
    expect(JSON.stringify(done)).toMatch(/ENOENT/);
    expect(JSON.stringify(cli.updates)).not.toContain('plaited-fixture-key');
    expect(JSON.stringify(server.requests)).not.toContain('plaited-fixture-key');
  });

  it('answers malformed input with JSON-RPC errors through the wrapper and keeps working', async () => {
    const sessionId = await newSession();
    cli.writeRaw('{"jsonrpc":"2.0","id":"raw-1","method":\n');
    cli.writeRaw('{"jsonrpc":"2.0","id":"raw-2","method":"no/such_method","params":{}}\n');
    await waitFor(() => cli.rawResponses.length >= 2, 15_000, 'answers to both raw lines');
    const codes = cli.rawResponses.map((message) => (message.error as { code: number } | undefined)?.code);
    expect(codes).toEqual(expect.arrayContaining([-32700, -32601]));
    server.push({ text: 'still fine' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ok?' }] });
    expect(response.stopReason).toBe('end_turn');
  });

  // Last: it ends the shared CLI.
  it('after a restart, session/load replays the history (the state store is writable inside)', async () => {
    writeFileSync(join(cwd, 'a.txt'), 'content of a');
    const sessionId = await newSession();
    server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'It says: content of a.' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what is in a.txt?' }] });
    await cli.close();

    const second = start({ HOME: home });
    restarted.push(second);
    await initialize(second);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replayed = second.updates.filter((n) => n.sessionId === sessionId);
    expect(replayed[0]!.update).toMatchObject({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'what is in a.txt?' } });
    expect(agentText(second, sessionId)).toBe('It says: content of a.');
    expect(second.validator.errors, second.validator.errors.join('\n')).toEqual([]);
  });
});
