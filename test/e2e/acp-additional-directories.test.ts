import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { sharedAcpBed } from '../helpers/shared-acp-bed.js';
import { initialize } from '../helpers/acp-cli.js';
import { requireTestModel } from '../model/test-models.js';

const fixtureServer = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/mcp/fixture-server.mjs');
const fixture: acp.McpServer = { name: 'fixture', command: process.execPath, args: [fixtureServer, '--name', 'fixture'], env: [] };

/**
 * One model server for the file and one CLI on the embedder test model for the tests that need no
 * other config (a start is ~1 s of CPU): each opens its sessions in a folder of its own (where
 * they are stored); the restart test runs last and restarts it. The sandbox test needs its own
 * config, so its own CLI.
 */
const bed = sharedAcpBed({ prefix: 'plaited-dirs-' });

function project(): string {
  const cwd = bed.project();
  mkdirSync(join(cwd, '.plaited'), { recursive: true });
  writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 } }));
  return cwd;
}

/** Another folder outside the project, with a file and its own rules file. */
function extraRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plaited-extra-root-'));
  writeFileSync(join(dir, 'b.txt'), 'contents of the extra root');
  writeFileSync(join(dir, 'AGENTS.md'), '# Extra root rules\nAlways mention bananas.\n');
  return dir;
}

describe('ACP additionalDirectories', () => {
  const shared = bed.shared({ cwd: project() });

  it('extra roots are workspace: file tools reach them, their rules load, MCP roots list them', async () => {
    const cwd = bed.project();
    const extra = extraRoot();
    const { cli, init } = shared;
    expect(init.agentCapabilities?.sessionCapabilities?.additionalDirectories).toEqual({});
    const { sessionId } = await cli.agent.request('session/new', { cwd, additionalDirectories: [extra], mcpServers: [fixture] });
    bed.server.push(
      { toolCalls: [{ name: 'read_file', arguments: { path: join(extra, 'b.txt') } }] },
      { toolCalls: [{ name: 'mcp__fixture__roots', arguments: {} }] },
      { text: 'Done.' },
    );
    const before = bed.server.requests.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read b' }] });
    expect(response.stopReason).toBe('end_turn');
    const first = JSON.stringify(bed.server.requests[before]!.messages);
    expect(first).toContain('Always mention bananas.');
    const last = JSON.stringify(bed.server.requests.at(-1)!.messages);
    expect(last).toContain('contents of the extra root');
    expect(last).toContain(pathToFileURL(extra).href);
    expect(last).toContain(pathToFileURL(cwd).href);
  });

  it('without them the folder stays outside, and bad entries are -32602 naming the entry', async () => {
    const cwd = bed.project();
    const extra = extraRoot();
    const { cli } = shared;
    await expect(cli.agent.request('session/new', { cwd, additionalDirectories: ['relative/dir'], mcpServers: [] })).rejects.toMatchObject({ code: -32602 });
    await expect(cli.agent.request('session/new', { cwd, additionalDirectories: [join(extra, 'missing')], mcpServers: [] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('additionalDirectories[0]'),
    });
    await expect(cli.agent.request('session/new', { cwd, additionalDirectories: [join(extra, 'b.txt')], mcpServers: [] })).rejects.toMatchObject({ code: -32602 });

    const plain = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: join(extra, 'b.txt') } }] }, { text: 'Could not.' });
    await cli.agent.request('session/prompt', { sessionId: plain.sessionId, prompt: [{ type: 'text', text: 'read b' }] });
    expect(JSON.stringify(bed.server.requests.at(-1)!.messages)).not.toContain('contents of the extra root');

  });

  it('under the command sandbox an extra root is workspace too: writable with the cwd, its git hooks are not, nothing else is', async () => {
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(
      join(cwd, '.plaited/config.json'),
      JSON.stringify({ agent: { defaultMode: 'accept-edits' }, tools: { allow: ['bash'] }, adapters: { sandbox: { commands: true } } }),
    );
    const extra = extraRoot();
    mkdirSync(join(extra, '.git/hooks'), { recursive: true });
    const elsewhere = mkdtempSync(join(tmpdir(), 'plaited-not-a-root-'));
    const cli = bed.start(cwd, { env: { NODE_ENV: 'test' } });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, additionalDirectories: [extra], mcpServers: [] });
    const attempt = (path: string) => `(echo made > ${path}) 2>/dev/null && echo "wrote ${path}" || echo "refused ${path}"`;
    const script = [join(cwd, 'in-cwd.txt'), join(extra, 'in-extra.txt'), join(extra, '.git/hooks/pre-commit'), join(elsewhere, 'escape.txt')].map(attempt).join('; ');
    bed.server.push({ toolCalls: [{ name: 'bash', arguments: { command: script } }] }, { text: 'Done.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write' }] });
    expect(response.stopReason).toBe('end_turn');
    const output = JSON.stringify(bed.server.requests.at(-1)!.messages.filter((m) => m.role === 'tool'));
    expect(output).toContain(`wrote ${join(cwd, 'in-cwd.txt')}`);
    expect(output).toContain(`wrote ${join(extra, 'in-extra.txt')}`);
    expect(output).toContain(`refused ${join(extra, '.git/hooks/pre-commit')}`);
    expect(output).toContain(`refused ${join(elsewhere, 'escape.txt')}`);
    expect(existsSync(join(extra, 'in-extra.txt'))).toBe(true);
    expect(existsSync(join(extra, '.git/hooks/pre-commit'))).toBe(false);
    expect(existsSync(join(elsewhere, 'escape.txt'))).toBe(false);
  }, 60_000);

  // Last: it restarts the shared CLI.
  it('the list is stored with the session, kept by a resume that names it and dropped by one that does not', async () => {
    const cwd = bed.project();
    const extra = extraRoot();
    const { cli } = shared;
    const { sessionId } = await cli.agent.request('session/new', { cwd, additionalDirectories: [extra], mcpServers: [] });
    const listed = await cli.agent.request('session/list', { cwd });
    expect(listed.sessions.find((s) => s.sessionId === sessionId)?.additionalDirectories).toEqual([extra]);
    await shared.close();

    // After a restart, resume with the list keeps the root; resume without it drops it.
    const second = bed.start(shared.cwd);
    await initialize(second);
    await second.agent.request('session/resume', { sessionId, cwd, additionalDirectories: [extra], mcpServers: [] });
    bed.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: join(extra, 'b.txt') } }] }, { text: 'Read.' });
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read b' }] });
    expect(JSON.stringify(bed.server.requests.at(-1)!.messages)).toContain('contents of the extra root');
    await bed.closeNow(second);

    const third = bed.start(shared.cwd);
    await initialize(third);
    await third.agent.request('session/resume', { sessionId, cwd, mcpServers: [] });
    bed.server.push({ toolCalls: [{ name: 'read_file', arguments: { path: join(extra, 'b.txt'), offset: 1 } }] }, { text: 'Refused.' });
    await third.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read b again' }] });
    const lastTool = bed.server.requests.at(-1)!.messages.filter((m) => m.role === 'tool').at(-1);
    expect(JSON.stringify(lastTool)).not.toContain('contents of the extra root');
  }, 90_000);
});
