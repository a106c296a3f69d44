import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { pathWithoutBubblewrap } from '../helpers/path-without-bubblewrap.js';
import { startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { requireBuiltCli, toolCallText, writeConfig, type SessionUpdateRecord } from '../adapters/sandbox/acp-cli-harness.js';
import { createSandboxWorld, requirePrograms, type SandboxWorld } from '../adapters/sandbox/sandbox-fixture.js';

/**
 * Issue 21 item 5 (environment half), through the built CLI: a command reads the
 * starting environment of the agent (`/proc/$PPID/environ`) and of every process
 * above it; none holds the agent's secrets, with or without the whole-agent
 * sandbox. The agent itself still has them (its model requests carry the key).
 */

const SECRETS = {
  PLAITED_API_KEY: 'sk-plaited-proc-fixture-1',
  PLAITED_AUTH_TOKEN: 'plaited-auth-proc-fixture-2',
  OPENAI_API_KEY: 'sk-openai-proc-fixture-3',
  GH_PAT: 'gh-pat-proc-fixture-4',
  // The native providers' key variables (issue 24).
  ANTHROPIC_API_KEY: 'sk-ant-proc-fixture-5',
  GOOGLE_GENERATIVE_AI_API_KEY: 'google-proc-fixture-6',
  OPENROUTER_API_KEY: 'sk-or-proc-fixture-7',
};

/**
 * Every ancestor of the command, the agent first: its pid and its starting environment. Pids come from
 * `/proc/<pid>/stat` (numbered as `/proc` sees them), not `$PPID`, which a nested pid namespace renumbers.
 */
const READ_ANCESTORS = [
  'parent() { read -r line < /proc/$1/stat; line=${line##*) }; line=${line#* }; echo ${line%% *}; }',
  'p=$(read -r line < /proc/self/stat; line=${line##*) }; line=${line#* }; echo ${line%% *})',
  'p=$(parent $p)',
  'while [ "$p" -gt 0 ]; do echo "== pid $p"; tr \'\\0\' \'\\n\' < /proc/$p/environ | grep -E "^(PATH|PLAITED_|OPENAI_|ANTHROPIC_|GOOGLE_|OPENROUTER_|GH_PAT)"; p=$(parent $p); done; echo "== end"',
].join('\n');

const MODES: Array<{ name: string; args: string[]; sandbox: Record<string, unknown>; env?: () => Record<string, string> }> = [
  { name: 'no sandbox, no bubblewrap', args: ['--adapter', 'acp'], sandbox: {}, env: () => ({ PATH: pathWithoutBubblewrap(['bash', 'sh', 'tr', 'grep', 'cat', 'env']) }) },
  { name: 'no sandbox, the read-only layer', args: ['--adapter', 'acp'], sandbox: {} },
  { name: 'whole-agent sandbox', args: ['--adapter', 'sandbox', '--adapter', 'acp'], sandbox: {} },
];

let world: SandboxWorld;
let model: ScriptedOpenAIServer;
let cli: AcpCli | undefined;
let nextCommand = READ_ANCESTORS;

beforeAll(async () => {
  requirePrograms('bwrap', 'socat');
  requireBuiltCli();
  world = await createSandboxWorld();
  model = await startScriptedOpenAIServer((request) => {
    const last = request.messages[request.messages.length - 1];
    if (last?.role === 'tool') return { text: 'done' };
    return { toolCalls: [{ name: 'bash', arguments: { command: nextCommand } }] };
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

async function runBash(mode: (typeof MODES)[number], command: string, env: Record<string, string>, passthrough: string[] = []): Promise<string> {
  const project = mkdtempSync(join(world.root, 'project-'));
  writeConfig(project, {
    agent: { model: 'openai-compatible:scripted', baseURL: model.url },
    tools: { allow: ['bash'], env: { passthrough } },
    adapters: { sandbox: mode.sandbox },
  });
  nextCommand = command;
  cli = startAcpCli({ args: mode.args, cwd: project, env: { HOME: world.home, NODE_ENV: 'test', ...mode.env?.(), ...env } });
  await cli.connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await cli.connection.agent.request('session/new', { cwd: project, mcpServers: [] });
  const before = cli.updates.length;
  await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run it' }] });
  const final = cli.updates
    .slice(before)
    .map((record) => record.update as SessionUpdateRecord['update'])
    .find((update) => update.sessionUpdate === 'tool_call_update' && update.status === 'completed');
  return toolCallText(final!);
}

/** Issue 21 item 13: credentials the old name list missed, and proxies with and without credentials. */
const MISSED = {
  GH_PAT: 'missed-gh-pat',
  GITHUB_PERSONAL_ACCESS: 'missed-github-personal',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.example/services/missed-slack',
  MONGODB_URI: 'mongodb+srv://missed-user:missed-mongo@db.example/app',
  AWS_ACCESS_KEY_ID: 'missed-aws-key-id',
  CI_JOB_JWT: 'missed-ci-jwt',
  apitoken: 'missed-apitoken',
  OPENAI_API_KEY_2: 'missed-openai-2',
  DOCKER_AUTH_CONFIG: '{"auths":"missed-docker"}',
  HTTPS_PROXY: 'http://proxy-user:missed-proxy-password@proxy.example:3128',
  UNRELATED_SETTING: 'missed-unlisted-setting',
};

describe('tool processes get an allow-listed environment (no sandbox)', () => {
  it('bash sees PATH, locale and a credential-free proxy, none of the missed credentials, and what tools.env.passthrough names', async () => {
    const text = await runBash(MODES[0]!, 'env', { ...MISSED, HTTP_PROXY: 'http://proxy.example:3128', LC_ALL: 'C.UTF-8', PASSED_THROUGH_KEY: 'passed-value' }, [
      'PASSED_THROUGH_KEY',
    ]);
    expect(text).toContain('PATH=');
    expect(text).toContain('LC_ALL=C.UTF-8');
    expect(text).toContain('HTTP_PROXY=http://proxy.example:3128');
    expect(text).toContain('PASSED_THROUGH_KEY=passed-value');
    for (const [name, value] of Object.entries(MISSED)) expect(text, name).not.toContain(value);
  }, 90_000);
});

describe.each(MODES)('secrets are in no environment block a command can read: $name', (mode) => {
  it('bash reads /proc/<pid>/environ of the agent and of every process above it and finds no secret', async () => {
    const requestsBefore = model.requests.length;
    const text = await runBash(mode, READ_ANCESTORS, SECRETS);
    // The command did read the agent's block (it has PATH) up to the end of the chain.
    expect(text).toMatch(/== pid \d+/);
    expect(text).toContain('PATH=');
    expect(text).toContain('== end');
    // Without a pid namespace the chain goes through the process the client started, which stays alive as the launcher.
    if (mode.env) expect(text).toContain(`== pid ${cli!.child.pid}\\n`);
    for (const [name, value] of Object.entries(SECRETS)) expect(text, name).not.toContain(value);
    // The agent restored its key in memory: the model requests carry it.
    expect(model.requestHeaders[requestsBefore]?.authorization).toBe(`Bearer ${SECRETS.PLAITED_API_KEY}`);
  }, 90_000);
});
