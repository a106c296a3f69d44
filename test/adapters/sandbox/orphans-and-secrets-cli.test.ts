import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../helpers/scripted-openai-server.js';
import { startAcpCli, type AcpCli } from '../../helpers/acp-cli.js';
import { countProcesses } from '../../helpers/count-processes.js';
import { waitFor } from '../../helpers/wait-for.js';
import { requireBuiltCli, toolCallText, writeConfig, type SessionUpdateRecord } from './acp-cli-harness.js';
import { promptCalling, promptedCall } from './prompted-call.js';
import { createSandboxWorld, requirePrograms, type SandboxWorld } from './sandbox-fixture.js';

/**
 * Through the real CLI, in every mode: a cancelled bash call leaves no process
 * behind (setsid and double-forked children included), and commands never see
 * the agent's credentials unless the config passes one through.
 */

let world: SandboxWorld;
let model: ScriptedOpenAIServer;

beforeAll(async () => {
  requirePrograms('bwrap', 'socat');
  requireBuiltCli();
  world = await createSandboxWorld();
  // Each prompt names the call the model answers it with (prompted-call.ts): the modes run at the same time.
  model = await startScriptedOpenAIServer((request) => {
    const last = request.messages[request.messages.length - 1];
    if (last?.role === 'tool') return { text: 'done' };
    return { toolCalls: [promptedCall(request)] };
  });
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

/** The CLI of one mode, its config passing `passthrough` on to commands. */
async function start(mode: (typeof MODES)[number], passthrough: string[]): Promise<{ cli: AcpCli; project: string }> {
  const project = mkdtempSync(join(world.root, 'project-'));
  writeConfig(project, {
    agent: { model: 'openai-compatible:scripted', baseURL: model.url },
    tools: { allow: ['bash'], env: { passthrough } },
    adapters: { sandbox: mode.sandbox },
  });
  const cli = startAcpCli({ args: mode.args, cwd: project, env: { HOME: world.home, NODE_ENV: 'test', ...SECRETS } });
  await cli.connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  return { cli, project };
}

/**
 * One CLI per mode serves both tests, each in a session of its own (a CLI start is most of a
 * test's cost). Its config passes GITHUB_TOKEN through, which the secrets test needs and
 * the cancel test does not look at. The modes run at the same time; a mode's tests in turn.
 */
describe.concurrent.each(MODES)('through the real CLI: $name', (mode) => {
  let cli: AcpCli;
  let project: string;
  beforeAll(async () => {
    ({ cli, project } = await start(mode, ['GITHUB_TOKEN']));
  });
  afterAll(async () => {
    await cli?.close();
  });
  const newSession = async (): Promise<string> => (await cli.connection.agent.request('session/new', { cwd: project, mcpServers: [] })).sessionId;

  it.sequential('cancelling a bash call kills its setsid and double-forked children too', async () => {
    const sessionId = await newSession();
    const marker = `${(process.pid % 1000) + 2000}.${Math.floor(Math.random() * 9000) + 1000}`;
    const command = `setsid sleep ${marker} & setsid -f sh -c 'sleep ${marker}' ; (setsid sh -c 'sleep ${marker} & wait' &) ; sleep ${marker}`;
    const prompt = cli.agent.request('session/prompt', { sessionId, prompt: promptCalling({ name: 'bash', arguments: { command } }) });
    const sleeps = new RegExp(`sleep ${marker.replace('.', '\\.')}`);
    await waitFor(() => countProcesses(sleeps) >= 4, 30_000, 'the four sleeps');
    await cli.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    await waitFor(() => countProcesses(sleeps) === 0, 15_000, 'no orphan left');
  }, 90_000);

  it.sequential('bash sees none of the agent secrets; a passed-through one it does', async () => {
    const sessionId = await newSession();
    const before = cli.updates.length;
    const call = { name: 'bash', arguments: { command: 'env; cat /proc/self/environ | tr "\\0" "\\n"' } };
    await cli.agent.request('session/prompt', { sessionId, prompt: promptCalling(call) });
    const final = cli.updates
      .slice(before)
      .filter((record) => record.sessionId === sessionId)
      .map((record) => record.update as SessionUpdateRecord['update'])
      .find((update) => update.sessionUpdate === 'tool_call_update' && (update.status === 'completed' || update.status === 'failed'));
    const text = toolCallText(final!);
    expect(text).toContain('PATH=');
    expect(text).toContain('GITHUB_TOKEN=ghp-fixture');
    for (const name of ['PLAITED_API_KEY', 'OPENAI_API_KEY', 'DB_PASSWORD']) expect(text, name).not.toContain(SECRETS[name as keyof typeof SECRETS]);
  }, 90_000);
});
