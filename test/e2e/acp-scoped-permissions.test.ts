import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentText, initialize, startAcpCli, type AcpCli, type StartCliOptions } from '../helpers/acp-cli.js';
import { startScriptedOpenAIServer, type RecordedRequest, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { promptCalling, promptedCall } from '../adapters/sandbox/prompted-call.js';
import { closeChecked } from '../helpers/close-checked.js';

/**
 * The tests run at the same time, each with CLIs, a project and a user config folder of its own,
 * on one scripted model: a prompt that names a call (prompted-call.ts) gets it, its result
 * "Done.", any other prompt "Noted.". A turn's requests are found by its prompt's text.
 */
let server: ScriptedOpenAIServer;
/** CLIs not closed yet; a test closes and checks its own, these are what a failed one left. */
const running = new Set<AcpCli>();

beforeAll(async () => {
  server = await startScriptedOpenAIServer((request) => {
    const last = request.messages[request.messages.length - 1];
    if (last?.role === 'tool') return { text: 'Done.' };
    return lastUserText(request).includes('<<call ') ? { toolCalls: [promptedCall(request)] } : { text: 'Noted.' };
  });
});

afterAll(async () => {
  await Promise.all([...running].map((cli) => cli.close()));
  await server?.close();
});

/** The built CLI in `cwd` on the scripted model. */
function start(cwd: string, options: Partial<StartCliOptions> = {}): AcpCli {
  const cli = startAcpCli({ ...options, cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', server.url] });
  running.add(cli);
  return cli;
}

/** Closes `cli` and checks all it said against the ACP schema. */
async function closeAndCheck(cli: AcpCli): Promise<void> {
  running.delete(cli);
  await closeChecked(cli);
}

function lastUserText(request: RecordedRequest): string {
  const content = [...request.messages].reverse().find((message) => message.role === 'user')?.content;
  return typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : '';
}

/** The model requests of the turn prompted with `prompt`, made since request number `from`: its call, then its result. */
function turnRequests(prompt: ReturnType<typeof promptCalling>, from: number): RecordedRequest[] {
  const text = prompt.map((block) => (block.type === 'text' ? block.text : '')).join('');
  return server.requests.slice(from).filter((request) => lastUserText(request) === text);
}
const fixtureServer = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));

/** A project with a `notes` folder to lose, and a user config folder of its own (where rules persist). */
function setup() {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-scoped-perms-'));
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
  const response = await cli.agent.request('session/prompt', { sessionId, prompt: promptCalling({ name: 'bash', arguments: { command } }) });
  expect(response.stopReason).toBe('end_turn');
}

async function slash(cli: AcpCli, sessionId: string, text: string): Promise<string> {
  const before = agentText(cli, sessionId);
  const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  expect(response.stopReason).toBe('end_turn');
  return agentText(cli, sessionId).slice(before.length);
}

describe.concurrent('"Always allow" covers exactly what its label says (issue 21, item 6)', () => {
  it('always-allowing `echo scoped-ok` does not let `rm -rf notes` run, before or after a restart', async () => {
    const { cwd, env, configHome } = setup();
    const asked: acp.RequestPermissionRequest[] = [];
    const first = start(cwd, { env, onPermission: answering(asked, 'echo scoped-ok') });
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
    await closeAndCheck(first);

    // After a restart: the rule holds, and still covers nothing but `echo scoped-ok`.
    const again: acp.RequestPermissionRequest[] = [];
    const second = start(cwd, { env, onPermission: answering(again, 'none') });
    await initialize(second);
    const next = await second.agent.request('session/new', { cwd, mcpServers: [] });
    const toolResults = server.requests.length;
    await bash(second, next.sessionId, 'echo scoped-ok');
    expect(again).toHaveLength(0);
    expect(JSON.stringify(turnRequests(promptCalling({ name: 'bash', arguments: { command: 'echo scoped-ok' } }), toolResults)[1]!.messages)).toContain('scoped-ok');
    await bash(second, next.sessionId, 'rm -rf notes');
    expect(commandsOf(again)).toEqual(['rm -rf notes']);
    expect(readFileSync(join(cwd, 'notes/keep.txt'), 'utf8')).toBe('precious\n');
    await closeAndCheck(second);
  }, 60_000);

  it('/permissions is offered as a command, lists the rules with numbers, and revokes one', async () => {
    const { cwd, env } = setup();
    const asked: acp.RequestPermissionRequest[] = [];
    const cli = start(cwd, { env, onPermission: answering(asked, 'echo listed') });
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
    await closeAndCheck(cli);
  }, 60_000);
});

describe.concurrent('MCP annotations are untrusted (issue 21, item 10)', () => {
  it('a readOnlyHint tool whose arguments name .git/hooks/pre-commit does not run unasked, in plan mode or accept-edits', async () => {
    const { cwd, env } = setup();
    const asked: acp.RequestPermissionRequest[] = [];
    const cli = start(cwd, { env, onPermission: answering(asked, 'none') });
    await initialize(cli);
    const fixture: acp.McpServer = { name: 'fixture', command: process.execPath, args: [fixtureServer, '--name', 'fixture'], env: [] };
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [fixture] });
    await cli.agent.request('session/set_mode', { sessionId, modeId: 'plan' });
    const before = server.requests.length;
    const echo = promptCalling({ name: 'mcp__fixture__echo', arguments: { text: '.git/hooks/pre-commit' } });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: echo });
    expect(response.stopReason).toBe('end_turn');
    expect(asked).toHaveLength(0);
    const [planned, plannedResult] = turnRequests(echo, before);
    const offered = planned!.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).not.toContain('mcp__fixture__echo');
    const results = plannedResult!.messages.filter((message) => message.role === 'tool');
    expect(JSON.stringify(results)).not.toContain('echo: .git/hooks/pre-commit');

    // Nor in any other mode: accept-edits asks too (rejected here, so it does not run).
    await cli.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    const next = server.requests.length;
    await cli.agent.request('session/prompt', { sessionId, prompt: echo });
    expect(asked.map((request) => request.toolCall.rawInput)).toEqual([{ text: '.git/hooks/pre-commit' }]);
    const after = turnRequests(echo, next)[1]!.messages.filter((message) => message.role === 'tool');
    expect(JSON.stringify(after)).not.toContain('echo: .git/hooks/pre-commit');
    await closeAndCheck(cli);
  }, 60_000);
});

describe.concurrent('an "always" for one MCP server covers that server, not another the editor names alike', () => {
  it('a session whose server "github" runs something else is asked again and told why; one with the same server is not', async () => {
    const { cwd, env, configHome } = setup();
    const asked: acp.RequestPermissionRequest[] = [];
    // "Always" for the first question only; every later one is rejected.
    const cli = start(cwd, {
      env,
      onPermission: (request) => {
        asked.push(request);
        return { outcome: { outcome: 'selected', optionId: asked.length === 1 ? 'allow-always' : 'reject-once' } };
      },
    });
    await initialize(cli);
    const github: acp.McpServer = { name: 'github', command: process.execPath, args: [fixtureServer, '--name', 'github'], env: [] };
    // The same name, another command line: what an editor (or another config) may call "github".
    const lookalike: acp.McpServer = { ...github, args: ['--no-warnings', fixtureServer, '--name', 'github'] };
    const echo = (text: string) => promptCalling({ name: 'mcp__github__echo', arguments: { text } });
    const call = async (sessionId: string, text: string) => {
      const before = server.requests.length;
      const response = await cli.agent.request('session/prompt', { sessionId, prompt: echo(text) });
      expect(response.stopReason).toBe('end_turn');
      return JSON.stringify(turnRequests(echo(text), before)[1]!.messages.filter((message) => message.role === 'tool'));
    };

    const first = await cli.agent.request('session/new', { cwd, mcpServers: [github] });
    expect(await call(first.sessionId, 'answered')).toContain('echo: answered');
    expect(asked).toHaveLength(1);

    const other = await cli.agent.request('session/new', { cwd, mcpServers: [lookalike] });
    expect(await call(other.sessionId, 'lookalike')).not.toContain('echo: lookalike');
    expect(asked).toHaveLength(2);
    const always = asked[0]!.options.find((option) => option.optionId === 'allow-always')!;
    expect(always.name).toBe(`Always allow \`mcp__github__echo\` (any arguments) from github (\`${process.execPath} ${fixtureServer} --name github\`) in this project`);
    expect(JSON.stringify(asked[1]!.toolCall.content)).toContain('the server named github is not the one your earlier answer was for');

    const same = await cli.agent.request('session/new', { cwd, mcpServers: [github] });
    expect(await call(same.sessionId, 'same server')).toContain('echo: same server');
    expect(asked).toHaveLength(2);
    expect(await slash(cli, same.sessionId, '/permissions')).toContain('1. allow mcp__github__echo from github (');

    // The rule names the server by its command line and a digest of it; the session's env is not in it.
    const file = join(configHome, 'plaited-agent/projects', createHash('sha256').update(cwd).digest('hex'), 'permissions.json');
    expect(JSON.parse(readFileSync(file, 'utf8')).rules).toMatchObject([
      { rule: 'mcp__github__echo', effect: 'allow', server: { name: 'github', key: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) } },
    ]);
    await closeAndCheck(cli);

    // After a restart the same server is still the one answered for (whatever sandbox wraps its command).
    const restarted = start(cwd, { env, onPermission: (request) => (asked.push(request), { outcome: { outcome: 'selected', optionId: 'reject-once' } }) });
    await initialize(restarted);
    const later = await restarted.agent.request('session/new', { cwd, mcpServers: [github] });
    const before = server.requests.length;
    await restarted.agent.request('session/prompt', { sessionId: later.sessionId, prompt: echo('after restart') });
    expect(JSON.stringify(turnRequests(echo('after restart'), before)[1]!.messages)).toContain('echo: after restart');
    expect(asked).toHaveLength(2);
    await closeAndCheck(restarted);
  }, 60_000);
});
