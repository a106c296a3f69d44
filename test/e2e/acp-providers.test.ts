import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { RECORDED, startProviderWireServer, type ProviderWireServer, type WireReply } from '../helpers/provider-wire-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { agentText, CLI, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { initializeV2, startAcpV2Cli, statesOf, type AcpV2Cli } from '../helpers/acp-v2-cli.js';
import { closeChecked } from '../helpers/close-checked.js';

/**
 * Unstable v1 `providers/list`, `providers/set`, `providers/disable` through the built CLI: the
 * client routes the agent's model calls through its own endpoint and headers, and back. Every
 * message is checked against the SDK's unstable v1 schema.
 */
const SECRET = 'Bearer client-secret-7f3a';

/**
 * The model servers live as long as the file, so that the tests on the default flags share one
 * CLI (`shared`: a start is ~1 s of CPU; the routes it is given are its connection's, and the test
 * that sets one disables it again). Each test sees only the requests that arrived since it began,
 * and after each no scripted step may be left over.
 */
function scripted() {
  let server: ScriptedOpenAIServer;
  let from = 0;
  return {
    start: async () => void (server = await startScriptedOpenAIServer()),
    begin: () => void (from = server.requests.length),
    close: () => server?.close(),
    pending: () => server.pending(),
    get url() {
      return server.url;
    },
    get requests() {
      return server.requests.slice(from);
    },
    get requestHeaders() {
      return server.requestHeaders.slice(from);
    },
    push: (...steps: Parameters<ScriptedOpenAIServer['push']>) => server.push(...steps),
  };
}
const first = scripted();
const second = scripted();
let wireServer: ProviderWireServer;
let wirePushed = 0;
const wire = {
  baseURL: (...args: Parameters<ProviderWireServer['baseURL']>) => wireServer.baseURL(...args),
  get requests() {
    return wireServer.requests;
  },
  push(...replies: WireReply[]) {
    wirePushed += replies.length;
    wireServer.push(...replies);
  },
};
const clis: Array<AcpCli | AcpV2Cli> = [];
let sharedCli: AcpCli | undefined;
beforeAll(async () => {
  await Promise.all([first.start(), second.start(), startProviderWireServer().then((started) => void (wireServer = started))]);
});
afterAll(async () => {
  await sharedCli?.close();
  await Promise.all([first.close(), second.close(), wireServer?.close()]);
});
beforeEach(() => {
  first.begin();
  second.begin();
  wireServer.requests.length = 0;
  wirePushed = 0;
});
afterEach(async () => {
  for (const cli of clis.splice(0)) {
    await closeChecked(cli);
  }
  if (sharedCli) expect(sharedCli.validator.errors, sharedCli.validator.errors.join('\n')).toEqual([]);
  expect([first.pending(), second.pending()], 'scripted steps the test left unused').toEqual([0, 0]);
  expect(wireServer.requests, 'every wire reply was asked for, and no more').toHaveLength(wirePushed);
});

const FIRST = () => ['--model', 'openai-compatible:scripted', '--base-url', first.url];
function start(args: string[] = FIRST(), more: Pick<Parameters<typeof startAcpCli>[0], 'env' | 'onPermission'> & { config?: unknown } = {}): AcpCli {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-providers-'));
  if (more.config) {
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify(more.config));
  }
  const cli = startAcpCli({ cwd, args: [...args, '--log-level', 'debug'], unstable: true, ...more });
  clis.push(cli);
  return cli;
}
/** The CLI on the default flags, started by the first test that asks and initialized by it. */
async function shared(): Promise<{ cli: AcpCli; init?: acp.InitializeResponse }> {
  if (sharedCli) return { cli: sharedCli };
  const cli = start();
  clis.pop();
  sharedCli = cli;
  return { cli, init: await initialize(cli) };
}
type ProviderInfo = { providerId: string; supported: string[]; required: boolean; current?: { apiType: string; baseUrl: string } | null };
const call = (cli: AcpCli, method: string, params: Record<string, unknown> = {}) =>
  cli.agent.request(method as never, params as never) as Promise<Record<string, unknown>>;
const list = async (cli: AcpCli) => (await call(cli, 'providers/list')).providers as ProviderInfo[];
async function newSession(cli: AcpCli): Promise<string> {
  const { sessionId } = await cli.agent.request('session/new', { cwd: mkdtempSync(join(tmpdir(), 'plaited-providers-s-')), mcpServers: [] });
  return sessionId;
}
async function prompt(cli: AcpCli, sessionId: string, text: string): Promise<void> {
  const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  expect(response.stopReason).toBe('end_turn');
}

describe('ACP providers/* (unstable v1)', () => {
  it('--help lists providers/* as unstable', () => {
    const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/unstable[^]*providers\/list, providers\/set, providers\/disable/);
  });

  it('set routes the next step to the client endpoint with its headers; list never shows them; disable routes back', async () => {
    const { cli, init } = await shared();
    expect(init, 'the first test on the shared CLI').toBeDefined();
    expect((init!.agentCapabilities as Record<string, unknown>).providers).toEqual({});
    expect(await list(cli)).toEqual([{ providerId: 'main', supported: ['anthropic', 'openai'], required: false, current: { apiType: 'openai', baseUrl: first.url } }]);
    const sessionId = await newSession(cli);

    first.push({ text: 'From the first.' });
    await prompt(cli, sessionId, 'one');
    expect([first.requests.length, second.requests.length]).toEqual([1, 0]);

    await call(cli, 'providers/set', { providerId: 'main', apiType: 'openai', baseUrl: second.url, headers: { Authorization: SECRET, 'X-Editor-Route': 'zed' } });
    expect(await list(cli)).toEqual([{ providerId: 'main', supported: ['anthropic', 'openai'], required: false, current: { apiType: 'openai', baseUrl: second.url } }]);
    second.push({ text: 'From the second.' });
    await prompt(cli, sessionId, 'two');
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);
    expect(second.requestHeaders[0]!.authorization).toBe(SECRET);
    expect(second.requestHeaders[0]!['x-editor-route']).toBe('zed');
    expect(second.requests[0]!.model).toBe('scripted');
    // The history went along: the routed model sees the first turn.
    expect(JSON.stringify(second.requests[0]!.messages)).toContain('From the first.');
    expect(agentText(cli, sessionId)).toBe('From the first.From the second.');

    await call(cli, 'providers/disable', { providerId: 'main' });
    expect((await list(cli))[0]!.current).toEqual({ apiType: 'openai', baseUrl: first.url });
    first.push({ text: 'Back at the first.' });
    await prompt(cli, sessionId, 'three');
    expect([first.requests.length, second.requests.length]).toEqual([2, 1]);
    expect(first.requestHeaders[1]!.authorization).toBeUndefined();

    // The secret never left the request it was sent in: not in any answer, update, log line or the stored session.
    const fromAgent = cli.validator.messages.filter((m) => m.direction === 'agent').map((m) => JSON.stringify(m.message));
    expect(fromAgent.join('\n')).not.toContain('client-secret');
    expect(cli.stderr()).not.toContain('client-secret');
    const loaded = cli.updates.length;
    const stored = (await cli.agent.request('session/list', {})).sessions.find((session) => session.sessionId === sessionId)!;
    await cli.agent.request('session/load', { sessionId, cwd: stored.cwd, mcpServers: [] });
    expect(JSON.stringify(cli.updates.slice(loaded))).not.toContain('client-secret');
  });

  it('a set during a turn takes over at its next model step; the agent key never goes to the client endpoint', async () => {
    let cli!: AcpCli;
    cli = start(FIRST(), {
      env: { PLAITED_API_KEY: 'agent-own-key' },
      // The turn waits on this answer: the route is set between the turn's first and second step.
      onPermission: async (request) => {
        await call(cli, 'providers/set', { providerId: 'main', apiType: 'openai', baseUrl: second.url, headers: { 'x-editor-route': 'zed' } });
        return { outcome: { outcome: 'selected', optionId: request.options.find((o) => o.kind === 'allow_once')!.optionId } };
      },
    });
    await initialize(cli);
    const sessionId = await newSession(cli);
    first.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'routed' } }] });
    second.push({ text: 'Written, via the second.' });
    await prompt(cli, sessionId, 'write it');
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);
    expect(first.requestHeaders[0]!.authorization).toBe('Bearer agent-own-key');
    expect(second.requestHeaders[0]!.authorization).toBeUndefined();
    expect(second.requestHeaders[0]!['x-editor-route']).toBe('zed');
    expect(JSON.stringify(second.requests[0]!.messages)).toContain('out.txt');
    expect(agentText(cli, sessionId)).toBe('Written, via the second.');
  });

  it("routes through an Anthropic-protocol endpoint with the client's credentials only, the session's picked model id along", async () => {
    const cli = start(FIRST(), {
      env: { ANTHROPIC_API_KEY: 'agent-anthropic-key', PLAITED_API_KEY: 'agent-own-key' },
      config: { agent: { models: [{ name: 'big', model: 'openai-compatible:big-model' }] } },
    });
    await initialize(cli);
    const sessionId = await newSession(cli);
    await call(cli, 'providers/set', { providerId: 'main', apiType: 'anthropic', baseUrl: wire.baseURL('anthropic'), headers: { 'X-Api-Key': 'sk-client-key' } });
    wire.push({ wire: 'anthropic', events: [RECORDED.anthropic.text] }, { wire: 'anthropic', events: [RECORDED.anthropic.text] });
    await prompt(cli, sessionId, 'hello');
    expect(wire.requests[0]!.path).toBe('/v1/messages');
    expect(wire.requests[0]!.headers['x-api-key']).toBe('sk-client-key');
    expect(wire.requests[0]!.body.model).toBe('scripted');
    expect(first.requests).toHaveLength(0);
    expect(agentText(cli, sessionId)).toContain('How are you doing today?');

    // A bearer token instead: no empty (nor the agent's) x-api-key goes along; the session's pick is the model sent.
    await call(cli, 'providers/set', { providerId: 'main', apiType: 'anthropic', baseUrl: wire.baseURL('anthropic'), headers: { authorization: 'Bearer client-token' } });
    await cli.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'big' });
    await prompt(cli, sessionId, 'again');
    expect(wire.requests[1]!.headers.authorization).toBe('Bearer client-token');
    expect(wire.requests[1]!.headers).not.toHaveProperty('x-api-key');
    expect(wire.requests[1]!.body.model).toBe('big-model');
  });

  it('bad params answer -32602 naming the fix; the agent lives on', async () => {
    const { cli } = await shared();
    await expect(call(cli, 'providers/set', { providerId: 'main', apiType: 'bedrock', baseUrl: second.url })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('use one of anthropic, openai'),
    });
    await expect(call(cli, 'providers/set', { providerId: 'main', apiType: 'openai', baseUrl: 'gateway.local/v1', headers: { authorization: SECRET } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('baseUrl must be an http:// or https:// URL'),
    });
    await expect(call(cli, 'providers/disable', { providerId: 'openai' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('use "main"'),
    });
    cli.writeRaw(`${JSON.stringify({ jsonrpc: '2.0', id: 'raw-1', method: 'providers/set', params: { providerId: 'main', apiType: 'openai' } })}\n`);
    await waitFor(() => cli.rawResponses.length === 1, 10_000, 'the answer to the raw request');
    expect(cli.rawResponses[0]!.error).toMatchObject({ code: -32602, message: expect.stringContaining('baseUrl must be a string'), data: { field: 'baseUrl' } });
    expect(JSON.stringify(cli.validator.messages.filter((m) => m.direction === 'agent'))).not.toContain('client-secret');
    // Nothing was routed: the next turn still goes to the configured endpoint.
    expect((await list(cli))[0]!.current).toEqual({ apiType: 'openai', baseUrl: first.url });
    first.push({ text: 'Still first.' });
    await prompt(cli, await newSession(cli), 'hi');
    expect([first.requests.length, second.requests.length]).toEqual([1, 0]);
  });

  it('the v2 draft serves them too (its unstable schema has them): set reroutes the next turn, disable routes back', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-providers-v2-'));
    const cli = startAcpV2Cli({ cwd, args: FIRST(), unstable: true });
    clis.push(cli);
    await initializeV2(cli);
    // The stable draft client drops keys its schema lacks: the capability is read from the wire.
    const answer = cli.validator.messages.find((m) => m.direction === 'agent' && (m.message.result as { protocolVersion?: number } | undefined)?.protocolVersion === 2);
    expect((answer?.message.result as { capabilities: Record<string, unknown> }).capabilities.providers).toEqual({});
    const request = (method: string, params: Record<string, unknown>) => cli.agent.request(method as never, params as never) as Promise<Record<string, unknown>>;
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const turn = async (text: string, done: number) => {
      await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
      await waitFor(() => statesOf(cli, sessionId).filter((state) => state === 'idle:end_turn').length === done, 20_000, 'the turn to end');
    };
    await request('providers/set', { providerId: 'main', apiType: 'openai', baseUrl: second.url, headers: { authorization: SECRET } });
    second.push({ text: 'Second.' });
    await turn('one', 1);
    expect([first.requests.length, second.requests.length]).toEqual([0, 1]);
    expect(second.requestHeaders[0]!.authorization).toBe(SECRET);
    expect(((await request('providers/list', {})).providers as ProviderInfo[])[0]!.current).toEqual({ apiType: 'openai', baseUrl: second.url });
    await request('providers/disable', { providerId: 'main' });
    first.push({ text: 'First.' });
    await turn('two', 2);
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);
    expect(JSON.stringify(cli.validator.messages.filter((m) => m.direction === 'agent'))).not.toContain('client-secret');
  });

  it('an in-process model advertises no providers and says why set cannot route', async () => {
    const cli = start(['--model', 'llama-cpp:/nonexistent/model.gguf']);
    const init = await initialize(cli);
    expect(init.agentCapabilities).not.toHaveProperty('providers');
    expect(await list(cli)).toEqual([]);
    await expect(call(cli, 'providers/set', { providerId: 'main', apiType: 'openai', baseUrl: second.url })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('configure an HTTP model'),
    });
  });
});
