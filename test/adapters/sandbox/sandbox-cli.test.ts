import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../helpers/scripted-openai-server.js';
import { startAcpCli, type AcpCli } from '../../helpers/acp-cli.js';
import { childProcesses, countProcesses, descendantProcesses, isAlive } from '../../helpers/count-processes.js';
import { waitFor } from '../../helpers/wait-for.js';
import { requireBuiltCli, toolCallText, writeConfig, type SessionUpdateRecord } from './acp-cli-harness.js';
import { promptCalling, promptedCall } from './prompted-call.js';
import { createSandboxWorld, fileHash, requirePrograms, requireProcessLimit, type SandboxWorld } from './sandbox-fixture.js';

/**
 * The attack battery through the real agent: the built CLI over ACP on stdio,
 * a scripted model that asks `bash` for each attack, and the sandbox on. Each
 * attack's tool call must end `failed` with the sandbox's reason in it.
 */

let world: SandboxWorld;
let model: ScriptedOpenAIServer;
let cli: AcpCli | undefined;

beforeAll(async () => {
  requirePrograms('bwrap', 'socat', 'curl');
  requireBuiltCli();
  world = await createSandboxWorld();
  // Every turn: the model asks bash for the command its prompt names (prompted-call.ts), then ends the turn once it sees the result.
  model = await startScriptedOpenAIServer((request) => {
    const last = request.messages[request.messages.length - 1];
    if (last?.role === 'tool') return { text: 'done' };
    return { toolCalls: [promptedCall(request)] };
  });
});

afterEach(async () => {
  await cli?.close();
  cli = undefined;
});

afterAll(async () => {
  await model?.close();
  await world?.close();
});

function config(sandbox: Record<string, unknown>): Record<string, unknown> {
  return {
    agent: { model: 'openai-compatible:scripted', baseURL: model.url, stateDb: join(world.project, '.plaited', 'state.db') },
    tools: { allow: ['bash'] },
    adapters: { sandbox },
  };
}

/** A CLI in the world's project with a session; `track`: closed after the test (else the caller closes it). */
async function openSession(args: string[], { track = true, env = {} }: { track?: boolean; env?: Record<string, string> } = {}): Promise<{ cli: AcpCli; sessionId: string }> {
  const started = startAcpCli({ args, cwd: world.project, env: { HOME: world.home, NODE_ENV: 'test', ...env } });
  if (track) cli = started;
  try {
    await started.connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const session = await started.connection.agent.request('session/new', { cwd: world.project, mcpServers: [] });
    return { cli: started, sessionId: session.sessionId };
  } catch (error) {
    throw new Error(`the CLI did not open a session: ${(error as Error).message}\nstderr:\n${started.stderr()}`);
  }
}

/** Runs one turn whose model asks bash for `command`; returns the bash call's final update. */
async function runBash(session: { cli: AcpCli; sessionId: string }, command: string): Promise<SessionUpdateRecord['update']> {
  const before = session.cli.updates.length;
  const response = await session.cli.connection.agent.request('session/prompt', { sessionId: session.sessionId, prompt: promptCalling({ name: 'bash', arguments: { command } }) });
  expect(response.stopReason).toBe('end_turn');
  const finals = session.cli.updates
    .slice(before)
    .filter((record) => record.sessionId === session.sessionId)
    .map((record) => record.update as SessionUpdateRecord['update'])
    .filter((update) => update.sessionUpdate === 'tool_call_update' && (update.status === 'completed' || update.status === 'failed'));
  if (finals.length !== 1) throw new Error(`expected one finished bash call, got ${finals.length}\nstderr:\n${session.cli.stderr()}`);
  return finals[0];
}

const attacks = (w: () => SandboxWorld): Array<{ name: string; command: () => string; reason: () => RegExp }> => [
  { name: 'read ~/.ssh/id_rsa', command: () => 'cat ~/.ssh/id_rsa', reason: () => /blocked by sandbox: read of .*\.ssh\/id_rsa/ },
  { name: 'read .env', command: () => 'cat .env', reason: () => /blocked by sandbox: read of \.env/ },
  { name: 'write outside allowWrite', command: () => 'echo pwned >> /etc/passwd', reason: () => /blocked by sandbox: write to \/etc\/passwd/ },
  { name: 'write through a symlink pointing outside', command: () => 'echo escaped > output/escape-link', reason: () => /blocked by sandbox: write to output\/escape-link/ },
  { name: '.. traversal', command: () => 'echo escaped > output/../../escaped.txt', reason: () => /blocked by sandbox: write to output\/\.\.\/\.\.\/escaped\.txt/ },
  {
    name: 'TCP to a port on 127.0.0.1',
    command: () => `exec 3<>/dev/tcp/127.0.0.1/${w().tcpPort} && cat <&3`,
    reason: () => new RegExp(`blocked by sandbox: network access to 127\\.0\\.0\\.1:${w().tcpPort} is not allowed`),
  },
  { name: 'a non-allowed domain', command: () => 'curl -sS --max-time 15 https://example.com/', reason: () => /blocked by sandbox: network access to example\.com is not allowed/ },
  { name: 'fork bomb', command: () => ':(){ :|:& };:; sleep 5', reason: () => /killed: process limit 64 exceeded/ },
  { name: 'memory hog', command: () => 'tail /dev/zero', reason: () => /killed: memory limit 256 MB exceeded/ },
];

const COMPOSED_ADAPTER = fileURLToPath(new URL('../../fixtures/sandbox/sandboxed-acp-adapter.mjs', import.meta.url));

const LIMITS = { memory: '256M', processes: 64, timeoutMs: 4_000 };

/** The battery in a CLI started with `args` on a config with `sandbox`. */
async function runBattery(args: string[], sandbox: Record<string, unknown> = { commands: true, limits: LIMITS }): Promise<number> {
  writeConfig(world.project, config(sandbox));
  return attackBattery(await openSession(args));
}

/**
 * Allowed work, then every attack, in `session`. The fork bomb ends only at the wall-clock limit
 * (`timeoutMs`): it runs in a second session of the CLI, beside the other attacks, and its result
 * is checked in its turn.
 */
async function attackBattery(session: { cli: AcpCli; sessionId: string }): Promise<number> {
  const passwd = fileHash('/etc/passwd');

  const ok = await runBash(session, 'echo built > output/ok.txt && cat output/ok.txt');
  expect(ok.status, toolCallText(ok)).toBe('completed');
  const allowedHost = await runBash(session, `curl -sS --max-time 15 ${model.url.replace(/\/v1$/, '')}/v1/models`);
  expect(allowedHost.status, toolCallText(allowedHost)).toBe('completed');
  expect(toolCallText(allowedHost)).toContain('scripted');

  await requireProcessLimit();
  let blocked = 0;
  const battery = attacks(() => world);
  const bomb = battery.find((attack) => attack.name === 'fork bomb')!;
  const beside = { cli: session.cli, sessionId: (await session.cli.connection.agent.request('session/new', { cwd: world.project, mcpServers: [] })).sessionId };
  const bombed = runBash(beside, bomb.command());
  bombed.catch(() => undefined); // awaited in its turn below
  for (const attack of battery) {
    const update = attack === bomb ? await bombed : await runBash(session, attack.command());
    expect(
      update.status,
      `${attack.name}: ${toolCallText(update)}\n(if no attack is blocked with \`--adapter acp\` alone, the CLI is not applying adapters.sandbox.commands: ` +
        'src/cli/run-cli.ts must wrap the agent with `await sandboxAdapter.wrap(agent, { config })` from src/adapters/sandbox/sandbox-adapter.ts ' +
        'when config.adapters.sandbox.commands is true or PLAITED_SANDBOXED=1)',
    ).toBe('failed');
    expect(toolCallText(update), attack.name).toMatch(attack.reason());
    blocked++;
  }
  expect(fileHash('/etc/passwd')).toBe(passwd);
  expect(existsSync(world.outsideTarget)).toBe(false);
  expect(world.tcpConnections()).toBe(0);
  return blocked;
}

describe('per-command sandbox through the real agent', () => {
  it('config adapters.sandbox.commands: true — every attack fails with the reason, allowed work and the allowed host work', async () => {
    const blocked = await runBattery(['--adapter', 'acp']);
    expect(blocked).toBe(attacks(() => world).length);
    process.stderr.write(`sandbox battery (real agent, commands: true): ${blocked} attacks tried, ${blocked} blocked\n`);
  }, 120_000);

  it('composed through the custom-adapter extension point (--adapter PATH) — same battery', async () => {
    const blocked = await runBattery(['--adapter', COMPOSED_ADAPTER]);
    expect(blocked).toBe(attacks(() => world).length);
  }, 120_000);

  it('whole agent sandboxed, commands reported by the child (--adapter sandbox --adapter PATH) — same battery', async () => {
    const blocked = await runBattery(['--adapter', 'sandbox', '--adapter', COMPOSED_ADAPTER]);
    expect(blocked).toBe(attacks(() => world).length);
    process.stderr.write(`sandbox battery (real agent, whole-agent sandbox): ${blocked} attacks tried, ${blocked} blocked\n`);
  }, 120_000);
});

/** One whole-agent CLI (`--adapter sandbox --adapter acp`, the limits set) for the battery and the pass-through checks, a session each. */
describe('whole-agent sandbox (--adapter sandbox --adapter acp)', () => {
  let shared: { cli: AcpCli; sessionId: string };
  beforeAll(async () => {
    writeConfig(world.project, config({ limits: LIMITS }));
    shared = await openSession(['--adapter', 'sandbox', '--adapter', 'acp'], { track: false });
  });
  afterAll(async () => {
    await shared?.cli.close();
  });

  it('whole agent sandboxed (--adapter sandbox --adapter acp, no commands setting) — same battery, reported by the child', async () => {
    const blocked = await attackBattery(shared);
    expect(blocked).toBe(attacks(() => world).length);
    process.stderr.write(`sandbox battery (real agent, --adapter sandbox --adapter acp): ${blocked} attacks tried, ${blocked} blocked\n`);
  }, 120_000);

  it('passes ACP through unchanged, reaches the model on 127.0.0.1, and runs tools inside the walls', async () => {
    const session = { cli: shared.cli, sessionId: (await shared.cli.connection.agent.request('session/new', { cwd: world.project, mcpServers: [] })).sessionId };

    const inside = await runBash(session, 'echo "marker=$PLAITED_SANDBOXED isolated=$PLAITED_SANDBOX_ISOLATED" && echo built > output/whole.txt && cat output/whole.txt');
    expect(inside.status, toolCallText(inside)).toBe('completed');
    expect(toolCallText(inside)).toContain('marker=1 isolated=1');
    expect(readFileSync(join(world.project, 'output', 'whole.txt'), 'utf8')).toBe('built\n');

    const secret = await runBash(session, 'cat ~/.ssh/id_rsa');
    expect(secret.status).toBe('failed');
    expect(toolCallText(secret)).not.toContain('plaited-fixture-key');
    expect(toolCallText(secret)).toMatch(/blocked by sandbox: read of .*\.ssh\/id_rsa/);

    const write = await runBash(session, 'echo pwned >> /etc/passwd');
    expect(write.status).toBe('failed');
    expect(toolCallText(write)).toMatch(/blocked by sandbox: write to \/etc\/passwd/);
  }, 120_000);
});

describe('whole-agent sandbox (--adapter sandbox --adapter acp), no wall-clock limit', () => {
  it('the sandboxed child and everything it started die with the parent', async () => {
    writeConfig(world.project, config({}));
    const session = await openSession(['--adapter', 'sandbox', '--adapter', 'acp']);
    const marker = `${300 + Math.floor(Math.random() * 1000)}.4242`;
    const sleeping = new RegExp(`sleep ${marker.replace('.', '\\.')}`);
    // A command still running inside the sandbox when the parent goes away.
    void session.cli.connection.agent.request('session/prompt', { sessionId: session.sessionId, prompt: promptCalling({ name: 'bash', arguments: { command: `sleep ${marker}` } }) }).catch(() => undefined);
    await waitFor(() => countProcesses(sleeping) > 0, 10_000, 'the sleep inside the sandbox');

    session.cli.child.kill('SIGTERM');
    await session.cli.exited;
    cli = undefined;
    await waitFor(() => countProcesses(sleeping) === 0, 10_000, 'the sleep to die with the parent');
  }, 60_000);

  it('killed with SIGKILL, which no handler sees, the parent still takes its network bridge (and its socket) and the sandboxed agent with it', async () => {
    writeConfig(world.project, config({}));
    const tmp = mkdtempSync(join(world.root, 'tmp-'));
    const session = await openSession(['--adapter', 'sandbox', '--adapter', 'acp'], { env: { TMPDIR: tmp } });
    const parent = session.cli.child.pid!;
    // The sandbox runtime's bridge from the sandbox's network to the parent's proxy: a socat of the parent's own.
    const bridges = childProcesses(parent, /^socat /);
    expect(bridges.length, 'the parent started no socat bridge').toBeGreaterThan(0);
    const agent = descendantProcesses(parent, /^\S+ --import \S+sandbox-child-preload\.js /);
    expect(agent, 'the agent under bubblewrap').toHaveLength(1);
    // Where each bridge listens: a socket in $TMPDIR (`UNIX-LISTEN:<path>,fork,...`).
    const sockets = bridges.map((pid) => /UNIX-LISTEN:([^,\0]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'latin1'))?.[1]);
    expect(sockets.every((socket) => socket !== undefined && existsSync(socket)), String(sockets)).toBe(true);

    session.cli.child.kill('SIGKILL');
    await session.cli.exited;
    cli = undefined;
    await waitFor(() => ![...bridges, ...agent].some(isAlive), 10_000, `the bridge (pid ${bridges.join(', ')}) and the sandboxed agent (pid ${agent[0]}) to die with the parent`);
    // A bridge dies of SIGTERM, which socat handles by removing its socket (a SIGKILL left one per kill).
    expect(sockets.filter((socket) => existsSync(socket!))).toEqual([]);
    // What no process can remove once killed: the proxy's own socket (the library's neutral cwd exists only while a wrap is built).
    const left = `srt-mux-${parent}-0.sock`;
    expect(readdirSync(tmp)).toEqual([left]);
    // The next start in that TMPDIR removes it: its process is gone and nothing listens on it.
    const next = await openSession(['--adapter', 'sandbox', '--adapter', 'acp'], { env: { TMPDIR: tmp } });
    expect(readdirSync(tmp)).not.toContain(left);
    await next.cli.close();
    cli = undefined;
    expect(readdirSync(tmp)).toEqual([]);
  }, 60_000);
});
