import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer, type ScriptToolCall } from '../../helpers/scripted-openai-server.js';
import { startAcpCli, type AcpCli } from '../../helpers/acp-cli.js';
import { waitFor } from '../../helpers/wait-for.js';
import { requireBuiltCli, toolCallText, writeConfig, type SessionUpdateRecord } from './acp-cli-harness.js';
import { createSandboxWorld, requirePrograms, type SandboxWorld } from './sandbox-fixture.js';

/**
 * Through the real CLI, in every mode: a cancelled bash call leaves no process
 * behind (setsid and double-forked children included), and commands never see
 * the agent's credentials unless the config passes one through.
 */

let world: SandboxWorld;
let model: ScriptedOpenAIServer;
let nextCall: ScriptToolCall = { name: 'bash', arguments: { command: 'true' } };
let cli: AcpCli | undefined;

beforeAll(async () => {
  requirePrograms('bwrap', 'socat');
  requireBuiltCli();
  world = await createSandboxWorld();
  model = await startScriptedOpenAIServer((request) => {
    const last = request.messages[request.messages.length - 1];
    if (last?.role === 'tool') return { text: 'done' };
    return { toolCalls: [nextCall] };
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

const MODES = [
  { name: 'no sandbox', args: ['--adapter', 'acp'], sandbox: {} },
  { name: 'command sandbox', args: ['--adapter', 'acp'], sandbox: { commands: true } },
  { name: 'whole-agent sandbox', args: ['--adapter', 'sandbox', '--adapter', 'acp'], sandbox: {} },
];

const SECRETS = { PLAITED_API_KEY: 'sk-plaited-fixture', OPENAI_API_KEY: 'sk-openai-fixture', GITHUB_TOKEN: 'ghp-fixture', DB_PASSWORD: 'hunter2-fixture' };

async function open(mode: (typeof MODES)[number], passthrough: string[] = []): Promise<{ cli: AcpCli; sessionId: string }> {
  const project = mkdtempSync(join(world.root, 'project-'));
  writeConfig(project, {
    agent: { model: 'openai-compatible:scripted', baseURL: model.url },
    tools: { allow: ['bash'], env: { passthrough } },
    adapters: { sandbox: mode.sandbox },
  });
  const started = startAcpCli({ args: mode.args, cwd: project, env: { HOME: world.home, NODE_ENV: 'test', ...SECRETS } });
  cli = started;
  await started.connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const session = await started.connection.agent.request('session/new', { cwd: project, mcpServers: [] });
  return { cli: started, sessionId: session.sessionId };
}

function alive(marker: string): number {
  try {
    return Number(execFileSync('pgrep', ['-f', '-c', marker], { encoding: 'utf8' }).trim()) || 0;
  } catch {
    return 0;
  }
}

describe.each(MODES)('through the real CLI: $name', (mode) => {
  it('cancelling a bash call kills its setsid and double-forked children too', async () => {
    const session = await open(mode);
    const marker = `${(process.pid % 1000) + 2000}.${Math.floor(Math.random() * 9000) + 1000}`;
    nextCall = {
      name: 'bash',
      arguments: { command: `setsid sleep ${marker} & setsid -f sh -c 'sleep ${marker}' ; (setsid sh -c 'sleep ${marker} & wait' &) ; sleep ${marker}` },
    };
    const prompt = session.cli.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'go' }] });
    await waitFor(() => alive(`sleep ${marker}`) >= 4, 30_000, 'the four sleeps');
    await session.cli.agent.notify('session/cancel', { sessionId: session.sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    await waitFor(() => alive(`sleep ${marker}`) === 0, 15_000, 'no orphan left');
  }, 90_000);

  it('bash sees none of the agent secrets; a passed-through one it does', async () => {
    const session = await open(mode, ['GITHUB_TOKEN']);
    nextCall = { name: 'bash', arguments: { command: 'env; cat /proc/self/environ | tr "\\0" "\\n"' } };
    const before = session.cli.updates.length;
    await session.cli.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'env' }] });
    const final = session.cli.updates
      .slice(before)
      .map((record) => record.update as SessionUpdateRecord['update'])
      .find((update) => update.sessionUpdate === 'tool_call_update' && (update.status === 'completed' || update.status === 'failed'));
    const text = toolCallText(final!);
    expect(text).toContain('PATH=');
    expect(text).toContain('GITHUB_TOKEN=ghp-fixture');
    for (const name of ['PLAITED_API_KEY', 'OPENAI_API_KEY', 'DB_PASSWORD']) expect(text, name).not.toContain(SECRETS[name as keyof typeof SECRETS]);
  }, 90_000);
});
