import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { agentText, initialize, type AcpCli } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';

const bed = acpTestBed({ prefix: 'plaited-scoped-perms-' });
const fixtureServer = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));

/** A project with a `notes` folder to lose, and a user config folder of its own (where rules persist). */
function setup() {
  const cwd = bed.project();
  mkdirSync(join(cwd, 'notes'));
  writeFileSync(join(cwd, 'notes/keep.txt'), 'precious\n');
  const configHome = mkdtempSync(join(tmpdir(), 'plaited-scoped-perms-home-'));
  return { cwd, env: { XDG_CONFIG_HOME: configHome }, configHome };
}

/** A client that answers "always" (the first allow_always option) for `allowAlways`, and rejects everything else. */
function answering(asked: acp.RequestPermissionRequest[], allowAlways: string) {
  return (request: acp.RequestPermissionRequest): acp.RequestPermissionResponse => {
    asked.push(request);
    const command = (request.toolCall.rawInput as { command?: string }).command;
    const always = request.options.find((option) => option.kind === 'allow_always');
    if (command === allowAlways && always) return { outcome: { outcome: 'selected', optionId: always.optionId } };
    return { outcome: { outcome: 'selected', optionId: 'reject-once' } };
  };
}

const commandsOf = (asked: acp.RequestPermissionRequest[]) => asked.map((request) => (request.toolCall.rawInput as { command: string }).command);

async function bash(cli: AcpCli, sessionId: string, command: string): Promise<void> {
  bed.server.push({ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text: 'Done.' });
  const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `run ${command}` }] });
  expect(response.stopReason).toBe('end_turn');
}

async function slash(cli: AcpCli, sessionId: string, text: string): Promise<string> {
  const before = agentText(cli, sessionId);
  const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  expect(response.stopReason).toBe('end_turn');
  return agentText(cli, sessionId).slice(before.length);
}

describe('"Always allow" covers exactly what its label says (issue 21, item 6)', () => {
  it('always-allowing `echo scoped-ok` does not let `rm -rf notes` run, before or after a restart', async () => {
    const { cwd, env, configHome } = setup();
    const asked: acp.RequestPermissionRequest[] = [];
    const first = bed.start(cwd, { env, onPermission: answering(asked, 'echo scoped-ok') });
    await initialize(first);
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] });

    await bash(first, sessionId, 'echo scoped-ok');
    expect(asked).toHaveLength(1);
    const names = asked[0]!.options.map((option) => option.name);
    expect(names).toContain('Always allow `echo scoped-ok` in this project');
    expect(names).toContain('Allow `echo scoped-ok` for this session');
    expect(names.filter((name) => /always allow/i.test(name)).every((name) => name.includes('echo scoped-ok'))).toBe(true);

    await bash(first, sessionId, 'echo scoped-ok');
    await bash(first, sessionId, 'rm -rf notes');
    await bash(first, sessionId, 'echo scoped-ok && rm -rf notes');
    await bash(first, sessionId, 'echo scoped-ok; rm -rf notes');
    await bash(first, sessionId, 'echo scoped-ok $(rm -rf notes)');
    expect(commandsOf(asked)).toEqual([
      'echo scoped-ok',
      'rm -rf notes',
      'echo scoped-ok && rm -rf notes',
      'echo scoped-ok; rm -rf notes',
      'echo scoped-ok $(rm -rf notes)',
    ]);
    expect(readFileSync(join(cwd, 'notes/keep.txt'), 'utf8')).toBe('precious\n');

    // The rule is in the user's own folder, outside the project, with the project named inside.
    const file = join(configHome, 'plaited-agent/projects', createHash('sha256').update(cwd).digest('hex'), 'permissions.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ project: cwd, rules: [{ rule: 'bash(echo scoped-ok)', effect: 'allow' }] });
    expect(existsSync(join(cwd, '.plaited/permissions.json'))).toBe(false);
    await bed.closeNow(first);

    // After a restart: the rule holds, and still covers nothing but `echo scoped-ok`.
    const again: acp.RequestPermissionRequest[] = [];
    const second = bed.start(cwd, { env, onPermission: answering(again, 'none') });
    await initialize(second);
    const next = await second.agent.request('session/new', { cwd, mcpServers: [] });
    const toolResults = bed.server.requests.length;
    await bash(second, next.sessionId, 'echo scoped-ok');
    expect(again).toHaveLength(0);
    expect(JSON.stringify(bed.server.requests[toolResults + 1]!.messages)).toContain('scoped-ok');
    await bash(second, next.sessionId, 'rm -rf notes');
    expect(commandsOf(again)).toEqual(['rm -rf notes']);
    expect(readFileSync(join(cwd, 'notes/keep.txt'), 'utf8')).toBe('precious\n');
  });

  it('/permissions is offered as a command, lists the rules with numbers, and revokes one', async () => {
    const { cwd, env } = setup();
    const asked: acp.RequestPermissionRequest[] = [];
    const cli = bed.start(cwd, { env, onPermission: answering(asked, 'echo listed') });
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    await waitFor(() =>
      cli.updates.some(
        (n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update' && n.update.availableCommands.some((c) => c.name === 'permissions'),
      ),
    );
    await bash(cli, sessionId, 'echo listed');
    const listing = await slash(cli, sessionId, '/permissions');
    expect(listing).toContain('1. allow bash(echo listed) (project)');
    expect(await slash(cli, sessionId, '/permissions revoke 7')).toContain('There is no rule 7');
    expect(await slash(cli, sessionId, '/permissions revoke 1')).toContain('Revoked rule 1: allow bash(echo listed)');
    expect(await slash(cli, sessionId, '/permissions')).toContain('No remembered rules');
    await bash(cli, sessionId, 'echo listed');
    expect(commandsOf(asked)).toEqual(['echo listed', 'echo listed']);
  });
});

describe('MCP annotations are untrusted (issue 21, item 10)', () => {
  it('a readOnlyHint tool whose arguments name .git/hooks/pre-commit does not run unasked, in plan mode or accept-edits', async () => {
    const { cwd, env } = setup();
    const asked: acp.RequestPermissionRequest[] = [];
    const cli = bed.start(cwd, { env, onPermission: answering(asked, 'none') });
    await initialize(cli);
    const server: acp.McpServer = { name: 'fixture', command: process.execPath, args: [fixtureServer, '--name', 'fixture'], env: [] };
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [server] });
    await cli.agent.request('session/set_mode', { sessionId, modeId: 'plan' });
    const before = bed.server.requests.length;
    bed.server.push({ toolCalls: [{ name: 'mcp__fixture__echo', arguments: { text: '.git/hooks/pre-commit' } }] }, { text: 'Planned.' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'plan' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(asked).toHaveLength(0);
    const offered = bed.server.requests[before]!.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).not.toContain('mcp__fixture__echo');
    const results = bed.server.requests[before + 1]!.messages.filter((message) => message.role === 'tool');
    expect(JSON.stringify(results)).not.toContain('echo: .git/hooks/pre-commit');

    // Nor in any other mode: accept-edits asks too (rejected here, so it does not run).
    await cli.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    const next = bed.server.requests.length;
    bed.server.push({ toolCalls: [{ name: 'mcp__fixture__echo', arguments: { text: '.git/hooks/pre-commit' } }] }, { text: 'Asked.' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(asked.map((request) => request.toolCall.rawInput)).toEqual([{ text: '.git/hooks/pre-commit' }]);
    const after = bed.server.requests[next + 1]!.messages.filter((message) => message.role === 'tool');
    expect(JSON.stringify(after)).not.toContain('echo: .git/hooks/pre-commit');
  });
});
