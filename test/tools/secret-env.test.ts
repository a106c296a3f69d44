import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalRuntime } from '../../src/tools/local-runtime.js';
import { isSecretEnv, isSecretEnvName, toolEnvironment } from '../../src/tools/secret-env.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject } from '../agent/agent-test-kit.js';

const SECRETS = {
  PLAITED_API_KEY: 'sk-plaited-value',
  OPENAI_API_KEY: 'sk-openai-value',
  ANTHROPIC_API_KEY: 'sk-ant-value',
  GITHUB_TOKEN: 'ghp_x',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
  AWS_SESSION_TOKEN: 'aws-session-value',
  DB_PASSWORD: 'hunter2-value',
  STRIPE_SECRET: 'stripe-secret-value',
  MY_PRIVATE_KEY: 'private-key-value',
  DATABASE_URL: 'postgres://u:p@h/db',
};

let saved: NodeJS.ProcessEnv;
beforeEach(() => {
  saved = { ...process.env };
  Object.assign(process.env, SECRETS, { PLAIN_SETTING: 'visible' });
});
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

describe('secret scrubbing for tool processes (no sandbox)', () => {
  it('names credentials and leaves ordinary variables', () => {
    for (const name of Object.keys(SECRETS)) expect(isSecretEnvName(name), name).toBe(true);
    for (const name of ['PATH', 'HOME', 'PWD', 'OLDPWD', 'LANG', 'TERM', 'KEYBOARD', 'TOKENIZERS_PARALLELISM', 'SSH_AUTH_SOCK']) {
      expect(isSecretEnvName(name), name).toBe(false);
    }
    const env = toolEnvironment(process.env, { passthrough: ['GITHUB_TOKEN'], explicit: { CALLER_TOKEN: 'scrubbed too', CALLER_SETTING: 'kept' } });
    expect(env.GITHUB_TOKEN).toBe('ghp_x');
    expect(env.CALLER_TOKEN).toBeUndefined();
    expect(env.CALLER_SETTING).toBe('kept');
    expect(env.OPENAI_API_KEY).toBeUndefined();
  });

  it('a local command sees none of the agent secrets, only the ones passed through', async () => {
    const runtime = createLocalRuntime(tempProject());
    const plain = await runtime.exec('env');
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(plain.output, name).not.toContain(`${name}=`);
      expect(plain.output).not.toContain(value);
    }
    // An allow-list (issue 21 item 13): a variable commands are not known to need passes only when configured.
    expect(plain.output).not.toContain('PLAIN_SETTING=visible');
    expect(plain.output).toContain('PATH=');
    expect((await runtime.exec('echo "$PLAIN_SETTING"', { passEnv: ['PLAIN_SETTING'] })).output).toBe('visible\n');
    const passed = await runtime.exec('echo "$GITHUB_TOKEN"', { passEnv: ['GITHUB_TOKEN'] });
    expect(passed.output).toBe('ghp_x\n');
  });

  it('the bash tool scrubs them and honours tools.env.passthrough from the config', async () => {
    const cwd = tempProject();
    const agent = makeAgent(
      scriptedModel([{ toolCalls: [{ name: 'bash', input: { command: 'env | sort' } }] }, { text: 'ok' }]),
      { tools: { allow: ['bash'], env: { passthrough: ['GITHUB_TOKEN', 'PLAIN_SETTING'] } } },
    );
    const session = await agent.sessions.create({ cwd });
    const events = await collect(agent, session.sessionId, 'show env');
    const output = JSON.stringify(events.filter((event) => event.type === 'tool-call-update'));
    expect(output).toContain('GITHUB_TOKEN=ghp_x');
    expect(output).toContain('PLAIN_SETTING=visible');
    for (const name of Object.keys(SECRETS).filter((name) => name !== 'GITHUB_TOKEN')) expect(output, name).not.toContain(`${name}=`);
  });

  it('flags the credentials the old name list missed (issue 21 item 13), by name or by value', () => {
    for (const name of ['GH_PAT', 'GITHUB_PERSONAL_ACCESS', 'SLACK_WEBHOOK_URL', 'MONGODB_URI', 'AWS_ACCESS_KEY_ID', 'CI_JOB_JWT', 'apitoken', 'OPENAI_API_KEY_2', 'DOCKER_AUTH_CONFIG']) {
      expect(isSecretEnv(name), name).toBe(true);
    }
    expect(isSecretEnv('HTTPS_PROXY', 'http://user:pw@proxy.example:3128')).toBe(true);
    expect(isSecretEnv('HTTPS_PROXY', 'http://proxy.example:3128')).toBe(false);
    expect(isSecretEnv('SOME_SETTING', 'ghp_0123456789abcdefghijABCDEFGHIJ')).toBe(true);
  });

  it('keeps only what commands need, credential-free proxies included, plus the passed-through names', () => {
    const base = {
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      XDG_CONFIG_HOME: '/home/u/.config',
      TERM: 'xterm',
      HTTP_PROXY: 'http://proxy.example:3128',
      https_proxy: 'http://u:pw@proxy.example:3128',
      GH_PAT: 'x',
      NODE_OPTIONS: '--require /tmp/evil.js',
      PLAITED_PROCESS_TAG: 'tag',
      WANTED: 'yes',
    };
    expect(toolEnvironment(base, { passthrough: ['WANTED'] })).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      XDG_CONFIG_HOME: '/home/u/.config',
      TERM: 'xterm',
      HTTP_PROXY: 'http://proxy.example:3128',
      PLAITED_PROCESS_TAG: 'tag',
      WANTED: 'yes',
    });
  });

  it('rejects a passthrough entry that is not a variable name', async () => {
    const { configSchema } = await import('../../src/config/schema.js');
    expect(configSchema.safeParse({ tools: { env: { passthrough: ['A B'] } } }).success).toBe(false);
  });
});
