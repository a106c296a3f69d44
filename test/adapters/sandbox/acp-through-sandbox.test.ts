import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { McpServer } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../../helpers/acp-test-bed.js';
import { waitFor } from '../../helpers/wait-for.js';
import { agentText, initialize, type AcpCli } from '../../helpers/acp-cli.js';
import { requireBuiltCli } from './acp-cli-harness.js';
import { FIXTURE_KEY, requirePrograms } from './sandbox-fixture.js';

const FILE_READER_SERVER = fileURLToPath(new URL('../../fixtures/sandbox/file-reader-mcp-server.mjs', import.meta.url));

/**
 * The spine's ACP scenarios again, with the whole agent under the sandbox
 * (`--adapter sandbox --adapter acp`): the protocol must pass through the
 * wrapper unchanged (every message is validated against the ACP schema), the
 * model on 127.0.0.1 must be reachable through the sandbox's proxy, and
 * cancellation must still leave no process behind.
 */

const bed = acpTestBed({ prefix: 'plaited-sandboxed-e2e-', args: ['--adapter', 'sandbox', '--adapter', 'acp'], before: () => {
    requirePrograms('bwrap', 'socat');
    requireBuiltCli();
  } });

const project = bed.project;

const start = bed.start;

async function newSession(cli: AcpCli, cwd: string) {
  await initialize(cli);
  return cli.agent.request('session/new', { cwd, mcpServers: [] });
}

describe('ACP scenarios through the whole-agent sandbox', () => {
  it('initializes, opens a session and streams a plain answer from the model on 127.0.0.1', async () => {
    const cwd = project();
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    bed.server.push({ text: 'Hello through the sandbox.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId)).toBe('Hello through the sandbox.');
    expect(bed.server.requests).toHaveLength(1);
  });

  it('runs a write tool after the user grants permission (the project is writable for approved edits)', async () => {
    const cwd = project();
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\n');
    const cli = start(cwd, { onPermission: () => ({ outcome: { outcome: 'selected', optionId: 'allow-once' } }) });
    const { sessionId } = await newSession(cli, cwd);
    bed.server.push({ toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'beta', new_string: 'gamma' } }] }, { text: 'Edited.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'change beta' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('alpha\ngamma\n');
  });

  it('cancel during `bash sleep 30` ends the turn cancelled and leaves no process', async () => {
    const cwd = project();
    const marker = `plaited-sandbox-cancel-${process.pid}-${Date.now()}`;
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    bed.server.push({ toolCalls: [{ name: 'bash', arguments: { command: `sleep 30 && echo ${marker}` } }] });
    const prompt = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'sleep' }] });
    await waitFor(() => spawnSync('pgrep', ['-f', marker]).status === 0, 15_000, 'the sleep to start');
    await cli.agent.notify('session/cancel', { sessionId });
    const response = await prompt;
    expect(response.stopReason).toBe('cancelled');
    await waitFor(() => spawnSync('pgrep', ['-f', marker]).status !== 0, 15_000, 'the sleep to be gone');
  });

  it('after a restart, session/load replays the history (the state store is writable inside)', async () => {
    const cwd = project();
    writeFileSync(join(cwd, 'a.txt'), 'content of a');
    const first = start(cwd);
    const { sessionId } = await newSession(first, cwd);
    bed.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'It says: content of a.' });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what is in a.txt?' }] });
    await bed.closeNow(first);

    const second = start(cwd);
    await initialize(second);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replayed = second.updates.filter((n) => n.sessionId === sessionId);
    expect(replayed[0]!.update).toMatchObject({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'what is in a.txt?' } });
    expect(agentText(second, sessionId)).toBe('It says: content of a.');
  });

  it('a stdio MCP server of the sandboxed agent (started by the launcher) cannot read a denied path', async () => {
    const cwd = project();
    const home = mkdtempSync(join(tmpdir(), 'plaited-sandboxed-home-'));
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_rsa'), FIXTURE_KEY);
    const cli = start(cwd, { env: { HOME: home } });
    await initialize(cli);
    const reader: McpServer = { name: 'reader', command: process.execPath, args: [FILE_READER_SERVER], env: [] };
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [reader] });
    bed.server.push({ toolCalls: [{ name: 'mcp__reader__read_text', arguments: { path: join(home, '.ssh', 'id_rsa') } }] }, { text: 'Could not read it.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read my key' }] });
    expect(response.stopReason).toBe('end_turn');
    const finals = cli.updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'tool_call_update')
      .map((n) => n.update as { status?: string; content?: unknown });
    const done = finals.find((update) => update.status === 'failed' || update.status === 'completed');
    expect(done?.status, JSON.stringify(finals)).toBe('failed');
    expect(JSON.stringify(done)).toMatch(/ENOENT/);
    expect(JSON.stringify(cli.updates)).not.toContain('plaited-fixture-key');
    expect(JSON.stringify(bed.server.requests)).not.toContain('plaited-fixture-key');
  });

  it('answers malformed input with JSON-RPC errors through the wrapper and keeps working', async () => {
    const cwd = project();
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    cli.writeRaw('{"jsonrpc":"2.0","id":"raw-1","method":\n');
    cli.writeRaw('{"jsonrpc":"2.0","id":"raw-2","method":"no/such_method","params":{}}\n');
    await waitFor(() => cli.rawResponses.length >= 2, 15_000, 'answers to both raw lines');
    const codes = cli.rawResponses.map((message) => (message.error as { code: number } | undefined)?.code);
    expect(codes).toEqual(expect.arrayContaining([-32700, -32601]));
    bed.server.push({ text: 'still fine' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'ok?' }] });
    expect(response.stopReason).toBe('end_turn');
  });
});


