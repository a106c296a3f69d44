import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, initialize, startAcpCli, type AcpCli, type StartCliOptions } from '../helpers/acp-cli.js';
import { trustProjectConfig } from '../helpers/trust-config.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { countProcesses } from '../helpers/count-processes.js';
import { waitFor } from '../helpers/wait-for.js';
import { requireBuiltCli, toolCallText, writeConfig, type SessionUpdateRecord } from '../adapters/sandbox/acp-cli-harness.js';
import { promptCalling, promptedCall } from '../adapters/sandbox/prompted-call.js';
import { requirePrograms } from '../adapters/sandbox/sandbox-fixture.js';
import { closeChecked } from '../helpers/close-checked.js';
import { runCliOnce } from '../helpers/run-cli-once.js';

/**
 * Issue 21, whole-agent sandbox: the launcher runs each command the sandboxed agent approves in a
 * sandbox of the command's own (the command broker). So an approved `bash` reaches neither the
 * agent's state (`.plaited/state/`: every principal's transcripts) nor the agent process
 * (`/proc/<agent>/environ`, its descriptors), while output, exit codes and background commands
 * work as before; and an "always" answer, which the agent cannot write into the read-only user
 * folder itself, is written by the launcher and holds after a restart.
 *
 * The tests run at the same time (a whole-agent start is mostly waiting), each with CLIs and a
 * project of its own, on one scripted model: a prompt that names a call (prompted-call.ts) gets
 * it, its result gets "Done.", any other prompt "Noted.".
 */

let server: ScriptedOpenAIServer;
const FIXTURE_SERVER = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url));
/** CLIs not closed yet; a test closes and checks its own, these are what a failed one left. */
const running = new Set<AcpCli>();

beforeAll(async () => {
  requirePrograms('bwrap', 'socat');
  requireBuiltCli();
  server = await startScriptedOpenAIServer((request) => {
    const last = request.messages[request.messages.length - 1];
    if (last?.role === 'tool') return { text: 'Done.' };
    return JSON.stringify(last?.content ?? '').includes('<<call ') ? { toolCalls: [promptedCall(request)] } : { text: 'Noted.' };
  });
});

afterAll(async () => {
  await Promise.all([...running].map((cli) => cli.close()));
  await server?.close();
});

/** The built CLI, whole agent sandboxed, in `cwd` on the scripted model. */
function start(cwd: string, options: Partial<StartCliOptions> = {}): AcpCli {
  const cli = startAcpCli({ ...options, cwd, args: ['--adapter', 'sandbox', '--adapter', 'acp', '--model', 'openai-compatible:scripted', '--base-url', server.url] });
  running.add(cli);
  return cli;
}

/** Closes `cli` and checks all it said against the ACP schema. */
async function closeAndCheck(cli: AcpCli): Promise<void> {
  running.delete(cli);
  await closeChecked(cli);
}

/** A project and a user config folder of its own (where "always" rules persist). */
function setup(allow: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-broker-e2e-'));
  writeConfig(cwd, { tools: { allow } });
  const configHome = mkdtempSync(join(tmpdir(), 'plaited-broker-home-'));
  return { cwd, configHome, env: { XDG_CONFIG_HOME: configHome } };
}

async function newSession(cli: AcpCli, cwd: string): Promise<string> {
  await initialize(cli);
  return (await cli.agent.request('session/new', { cwd, mcpServers: [] })).sessionId;
}

/** Runs one `bash` call in a turn and returns the text of its final update. */
async function bash(cli: AcpCli, sessionId: string, args: { command: string; background?: boolean }): Promise<string> {
  const before = cli.updates.length;
  const response = await cli.agent.request('session/prompt', { sessionId, prompt: promptCalling({ name: 'bash', arguments: args }) });
  expect(response.stopReason).toBe('end_turn');
  const final = cli.updates
    .slice(before)
    .map((record) => record.update as SessionUpdateRecord['update'])
    .find((update) => update.sessionUpdate === 'tool_call_update' && (update.status === 'completed' || update.status === 'failed'));
  return toolCallText(final!);
}

/**
 * What a command can learn of the agent: its state folder, its parent's environment, any process of the
 * sandbox's namespace (only the agent started with `PLAITED_SECRETS_FD`; commands get an allow-listed environment).
 */
const PROBE = [
  'echo "entries: $(ls -A .plaited/state 2>/dev/null | wc -l)"',
  'echo "transcript: $(cat .plaited/state/* 2>/dev/null | grep -a -c remember-marker-58)"',
  "echo \"parent: $({ tr '\\0' '\\n' < /proc/$PPID/environ; } 2>/dev/null | grep -c '^PLAITED_SECRETS_FD=')\"",
  "for p in /proc/[0-9]*; do { tr '\\0' '\\n' < $p/environ; } 2>/dev/null | grep -q '^PLAITED_SECRETS_FD=' && echo \"agent-visible ${p#/proc/}\"; done",
  // The agent's command line names its preload (spelled in two halves, so this script does not).
  'k=sandbox-child; k=${k}-preload; for p in /proc/[0-9]*; do grep -qa -- "$k" $p/cmdline 2>/dev/null && echo "agent-visible ${p#/proc/}"; done',
  'echo probe-done',
  'exit 7',
].join('\n');

describe.concurrent('whole-agent sandbox: commands run in a sandbox of their own (the command broker)', () => {
  it("an approved bash reads neither the agent's state nor the agent process; output, exit codes and background commands work", async () => {
    const { cwd, env } = setup(['bash']);
    const cli = start(cwd, { env });
    const sessionId = await newSession(cli, cwd);
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'remember-marker-5813 is the word' }] });

    const probed = await bash(cli, sessionId, { command: PROBE });
    expect(probed).toContain('probe-done');
    expect(probed).toContain('Exit code: 7');
    expect(probed).toContain('entries: 0');
    expect(probed).toContain('transcript: 0');
    expect(probed).toContain('parent: 0');
    expect(probed).not.toContain('agent-visible');
    // The agent itself still has its state: the transcript is there, outside the command's walls.
    expect(readFileSync(join(cwd, '.plaited/state/state.db')).length).toBeGreaterThan(0);

    // A background command keeps running after its call returns, and writes the project.
    const marker = `plaited-broker-bg-${process.pid}-${Date.now()}`;
    const started = await bash(cli, sessionId, { command: `echo bg-ready > bg.txt; exec -a ${marker} sleep 600`, background: true });
    expect(started).toContain('Started in the background');
    expect(await bash(cli, sessionId, { command: 'while [ ! -s bg.txt ]; do sleep 0.05; done; cat bg.txt' })).toContain('bg-ready');
    expect(countProcesses(new RegExp(marker))).toBeGreaterThan(0);
    // Closing the agent ends its background command too.
    await closeAndCheck(cli);
    await waitFor(() => countProcesses(new RegExp(marker)) === 0, 15_000, 'the background command to be gone');
  }, 120_000);

  it('-p: the agent waits for a command the launcher runs (nothing else keeps it alive), answers, exits 0 and leaves its TMPDIR empty', async () => {
    const { cwd, env } = setup(['bash']);
    const tmp = mkdtempSync(join(tmpdir(), 'plaited-broker-tmp-'));
    const call = JSON.stringify({ name: 'bash', arguments: { command: 'sleep 0.5; echo ok > notes.txt' } });
    const run = await runCliOnce(['--adapter', 'sandbox', '-p', `<<call ${call} call>>`, '--model', 'openai-compatible:scripted', '--base-url', server.url], { cwd, env: { ...env, TMPDIR: tmp } });
    expect({ status: run.status, stdout: run.stdout }, run.stderr).toEqual({ status: 0, stdout: 'Done.\n' });
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('ok\n');
    expect(readdirSync(tmp)).toEqual([]);
  }, 120_000);

  it('-p with a stdio MCP server: the server ends with the run, and the launcher takes the closed channel for the end it is (no error)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-broker-e2e-'));
    const marker = `plaited-broker-mcp-${process.pid}-${Date.now()}`;
    // A server that keeps talking on stderr: the launcher relays it, so the channel always holds some when the agent exits.
    const noisy = `while :; do echo ${marker}-noise >&2; sleep 0.005; done & exec ${process.execPath} ${FIXTURE_SERVER} --name ${marker}`;
    writeConfig(cwd, { tools: { allow: ['bash'] }, mcp: { servers: [{ id: 'fixture', transport: 'stdio', command: 'bash', args: ['-c', noisy] }], startupWaitMs: 20_000 } });
    const run = await runCliOnce(['--adapter', 'sandbox', '-p', 'hello', '--model', 'openai-compatible:scripted', '--base-url', server.url], { cwd, env: { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'plaited-broker-home-')) } });
    expect({ status: run.status, stdout: run.stdout }, run.stderr).toEqual({ status: 0, stdout: 'Noted.\n' });
    expect(run.stderr).toContain('MCP server "fixture": connected');
    expect(run.stderr).not.toContain('channel error');
    expect(countProcesses(new RegExp(marker))).toBe(0);
  }, 120_000);

  it('-p, SIGTERM while a command runs: the agent inside bubblewrap hears it and cancels the turn (exit 143, as a shell reports SIGTERM), the command goes with it', async () => {
    const { cwd, env } = setup(['bash']);
    const marker = `${300 + Math.floor(Math.random() * 1000)}.7373`;
    const call = JSON.stringify({ name: 'bash', arguments: { command: `sleep ${marker}` } });
    trustProjectConfig(cwd, [], env);
    const child = spawn(process.execPath, [CLI, '--adapter', 'sandbox', '-p', `<<call ${call} call>>`, '--model', 'openai-compatible:scripted', '--base-url', server.url], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    // Anchored: the CLI's own command line names the sleep too, in its prompt.
    const sleeping = new RegExp(`^sleep ${marker.replace('.', '\\.')}$`);
    await waitFor(() => countProcesses(sleeping) > 0, 30_000, 'the command to run');
    child.kill('SIGTERM');
    // bubblewrap forwards no signal: the launcher must hand it to the agent, or the agent dies at once without stopping.
    expect(await exited, stderr).toBe(143);
    expect(stderr).toContain('the turn was cancelled');
    await waitFor(() => countProcesses(sleeping) === 0, 10_000, 'the command to stop');
  }, 120_000);

  it('a client that edits files but has no terminal: its commands still go to the broker, not into the agent\'s namespace', async () => {
    const { cwd, env } = setup(['bash']);
    const cli = start(cwd, { env, configureClient: (app) => app.onRequest('fs/read_text_file', () => ({ content: '' })) });
    await initialize(cli, { fs: { readTextFile: true } });
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'remember-marker-5813 is the word' }] });
    const probed = await bash(cli, sessionId, { command: PROBE });
    expect(probed).toContain('probe-done');
    expect(probed).toContain('entries: 0');
    expect(probed).toContain('transcript: 0');
    expect(probed).not.toContain('agent-visible');
    await closeAndCheck(cli);
  }, 120_000);

  it('"always" picked in the sandbox holds after a restart; a command cannot write a rule itself', async () => {
    const { cwd, env, configHome } = setup([]);
    const asked: string[] = [];
    const answer = (request: acp.RequestPermissionRequest): acp.RequestPermissionResponse => {
      const command = (request.toolCall.rawInput as { command: string }).command;
      asked.push(command);
      const always = request.options.find((option) => option.kind === 'allow_always');
      if (command === 'echo scoped-ok' && always) return { outcome: { outcome: 'selected', optionId: always.optionId } };
      const once = request.options.find((option) => option.kind === 'allow_once');
      return { outcome: { outcome: 'selected', optionId: once!.optionId } };
    };
    const rules = join(configHome, 'plaited-agent/projects', createHash('sha256').update(cwd).digest('hex'), 'permissions.json');
    // Allowed once, this command tries to forge a rule: straight into the file, and through every socket it can see.
    const forge = [
      `mkdir -p ${JSON.stringify(join(rules, '..'))} 2>/dev/null; echo '{"project":${JSON.stringify(cwd)},"rules":[{"rule":"bash(echo forged)","effect":"allow"}]}' > ${JSON.stringify(rules)} 2>/dev/null && echo wrote-rules`,
      `for f in /proc/[0-9]*/fd/*; do case "$(readlink $f)" in socket:*) printf '%s\\n' '{"t":"rule","id":9001,"op":"add","project":${JSON.stringify(cwd)},"entry":{"rule":"bash(echo forged)","effect":"allow"}}' > $f 2>/dev/null && echo "wrote $f";; esac; done`,
      'echo forge-done',
    ].join('\n');

    const first = start(cwd, { env, onPermission: answer });
    const sessionId = await newSession(first, cwd);
    expect(await bash(first, sessionId, { command: 'echo scoped-ok' })).toContain('scoped-ok');
    const forged = await bash(first, sessionId, { command: forge });
    expect(forged).toContain('forge-done');
    expect(forged).not.toContain('wrote-rules');
    expect(asked).toEqual(['echo scoped-ok', forge]);
    // Written by the launcher, outside the sandbox, into the user's folder.
    await waitFor(() => existsSync(rules), 10_000, 'the rule file');
    expect(JSON.parse(readFileSync(rules, 'utf8'))).toMatchObject({ project: cwd, rules: [{ rule: 'bash(echo scoped-ok)', effect: 'allow' }] });
    await closeAndCheck(first);

    const second = start(cwd, { env, onPermission: answer });
    const next = await newSession(second, cwd);
    expect(await bash(second, next, { command: 'echo scoped-ok' })).toContain('scoped-ok');
    expect(await bash(second, next, { command: 'echo forged' })).toContain('forged');
    expect(asked).toEqual(['echo scoped-ok', forge, 'echo forged']);
    expect(JSON.parse(readFileSync(rules, 'utf8')).rules).toEqual([expect.objectContaining({ rule: 'bash(echo scoped-ok)' })]);
    await closeAndCheck(second);
  }, 120_000);
});
