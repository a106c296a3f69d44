import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { sharedAcpBed } from '../helpers/shared-acp-bed.js';
import { waitFor } from '../helpers/wait-for.js';
import { agentText, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';

const bed = sharedAcpBed({ prefix: 'plaited-lifecycle-' });

/** A project whose config offers two more models beside the CLI's `openai-compatible:scripted`. */
function projectWithModels(): string {
  const cwd = bed.project();
  mkdirSync(join(cwd, '.plaited'), { recursive: true });
  writeFileSync(
    join(cwd, '.plaited/config.json'),
    JSON.stringify({
      agent: {
        models: [
          { name: 'big', model: 'openai-compatible:big-model', description: 'The big one' },
          { name: 'thinker', model: 'openai-compatible:thinker-model', reasoningEfforts: ['low', 'high'] },
        ],
      },
    }),
  );
  return cwd;
}

const updatesOf = (cli: AcpCli, sessionId: string, kind: string) =>
  cli.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind).map((n) => n.update);

const selectValue = (options: acp.SessionConfigOption[] | null | undefined, id: string) => {
  const option = options?.find((candidate) => candidate.id === id);
  return option && option.type === 'select' ? option.currentValue : undefined;
};

/**
 * Independent tests share one CLI started in a project whose config offers two more models (the
 * config is the CLI's, read from the folder it starts in), each test in sessions of its own; a
 * permission question goes to its session's handler. The restart test runs after them and restarts
 * that CLI; another config and another environment keep CLIs of their own.
 */
describe('ACP session lifecycle and config options (v1)', () => {
  const withModels = projectWithModels();
  const shared = bed.shared({ cwd: withModels });

  it('advertises resume, close, delete and no auth method for a loopback model', async () => {
    const cli = shared.cli;
    const init = shared.init;
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ list: {}, resume: {}, close: {}, delete: {} });
    expect(init.authMethods).toEqual([]);
    expect(init.agentCapabilities?.auth?.logout ?? null).toBeNull();
    await expect(cli.agent.request('logout', {})).rejects.toMatchObject({ code: -32601 });
  });

  it('offers the configured models, and a model picked mid-session answers the next prompt', async () => {
    const cwd = withModels;
    const cli = shared.cli;
    const session = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const model = session.configOptions?.find((option) => option.id === 'model');
    expect(model).toMatchObject({ type: 'select', category: 'model', currentValue: 'default' });
    expect(model?.type === 'select' && model.options.map((option) => ('value' in option ? option.value : ''))).toEqual(['default', 'big', 'thinker']);
    expect(selectValue(session.configOptions, 'mode')).toBe('default');
    // The default model has no reasoning efforts: no such option.
    expect(session.configOptions?.some((option) => option.id === 'reasoning_effort')).toBe(false);

    bed.server.push({ text: 'one' });
    await cli.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'first' }] });
    expect(bed.server.requests.at(-1)!.model).toBe('scripted');

    const set = await cli.agent.request('session/set_config_option', { sessionId: session.sessionId, configId: 'model', value: 'big' });
    expect(selectValue(set.configOptions, 'model')).toBe('big');
    bed.server.push({ text: 'two' });
    await cli.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'second' }] });
    expect(bed.server.requests.at(-1)!.model).toBe('big-model');

    // Reasoning effort appears with a model that declares efforts, and reaches the endpoint.
    const thinker = await cli.agent.request('session/set_config_option', { sessionId: session.sessionId, configId: 'model', value: 'thinker' });
    expect(selectValue(thinker.configOptions, 'reasoning_effort')).toBe('default');
    await cli.agent.request('session/set_config_option', { sessionId: session.sessionId, configId: 'reasoning_effort', value: 'high' });
    bed.server.push({ text: 'three' });
    await cli.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'third' }] });
    expect(bed.server.requests.at(-1)).toMatchObject({ model: 'thinker-model', reasoning_effort: 'high' });

    // Unknown option or value: -32602 naming the choices.
    await expect(
      cli.agent.request('session/set_config_option', { sessionId: session.sessionId, configId: 'model', value: 'nope' }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('big') });
    await expect(
      cli.agent.request('session/set_config_option', { sessionId: session.sessionId, configId: 'colour', value: 'red' }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('a model picked while a turn runs takes over at the next step of that turn', async () => {
    const cwd = withModels;
    const cli = shared.cli;
    let sessionId = '';
    // The permission question arrives between step 1 and step 2: pick the model there.
    sessionId = await shared.session(cwd, async (request) => {
      await cli.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'big' });
      return { outcome: { outcome: 'selected', optionId: request.options[0]!.optionId } };
    });
    bed.server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' } }] }, { text: 'Done.' });
    const before = bed.server.requests.length;
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write a' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(bed.server.requests.slice(before).map((request) => request.model)).toEqual(['scripted', 'big-model']);
  });

  it('the mode option and session/set_mode stay in step', async () => {
    const cwd = bed.project();
    const cli = shared.cli;
    const sessionId = await shared.session(cwd);
    const set = await cli.agent.request('session/set_config_option', { sessionId, configId: 'mode', value: 'plan' });
    expect(selectValue(set.configOptions, 'mode')).toBe('plan');
    await waitFor(() => updatesOf(cli, sessionId, 'current_mode_update').length === 1, 10_000, 'current_mode_update');
    expect(updatesOf(cli, sessionId, 'current_mode_update')[0]).toMatchObject({ currentModeId: 'plan' });

    await cli.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    await waitFor(
      () => updatesOf(cli, sessionId, 'config_option_update').some((u) => selectValue((u as acp.ConfigOptionUpdate).configOptions, 'mode') === 'accept-edits'),
      10_000,
      'config_option_update with the new mode',
    );
  });

  it('close while a turn runs: the turn ends cancelled, and no update follows the close response', async () => {
    const cwd = bed.project();
    const cli = shared.cli;
    const sessionId = await shared.session(cwd);
    bed.server.push({ text: 'a long answer that never finishes streaming in time', chunkDelayMs: 2_000 });
    const before = bed.server.requests.length;
    const order: string[] = [];
    const turn = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] }).then((response) => {
      order.push('prompt');
      return response;
    });
    await waitFor(() => bed.server.requests.length > before, 10_000, 'the model request');
    await cli.agent.request('session/close', { sessionId });
    order.push('close');
    const updatesAtClose = cli.updates.filter((n) => n.sessionId === sessionId).length;
    expect((await turn).stopReason).toBe('cancelled');
    expect(order).toEqual(['prompt', 'close']);
    await cli.agent.request('session/list', {});
    expect(cli.updates.filter((n) => n.sessionId === sessionId).length).toBe(updatesAtClose);
    // Closed, not deleted: still listed, and loadable again.
    const listed = await cli.agent.request('session/list', {});
    expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId);
  });

  it('delete then list: the session and its history are gone; an unknown id deletes silently', async () => {
    const cwd = bed.project();
    const cli = shared.cli;
    const keep = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const drop = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ text: 'kept' }, { text: 'dropped' });
    await cli.agent.request('session/prompt', { sessionId: keep.sessionId, prompt: [{ type: 'text', text: 'keep me' }] });
    await cli.agent.request('session/prompt', { sessionId: drop.sessionId, prompt: [{ type: 'text', text: 'drop me' }] });
    expect(await cli.agent.request('session/delete', { sessionId: drop.sessionId })).toEqual({});
    const listed = await cli.agent.request('session/list', { cwd });
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([keep.sessionId]);
    await expect(cli.agent.request('session/load', { sessionId: drop.sessionId, cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
    expect(await cli.agent.request('session/delete', { sessionId: 'never-existed' })).toEqual({});
  });

  it('resumes after a restart without replaying, with the picked model and the history kept', async () => {
    // The first run is the shared CLI, in its project: this test runs after every other test on it and closes it.
    const cwd = withModels;
    const first = shared.cli;
    const sessionId = await shared.session(cwd);
    await first.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'big' });
    bed.server.push({ text: 'Remembered: the password is swordfish.' });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'remember swordfish' }] });
    await shared.close();

    const second = bed.start(cwd);
    await initialize(second);
    const resumed = await second.agent.request('session/resume', { sessionId, cwd, mcpServers: [] });
    expect(selectValue(resumed.configOptions, 'model')).toBe('big');
    // A request answered after the resume: anything replayed would have arrived before it.
    await second.agent.request('session/list', {});
    expect(second.updates.filter((n) => n.sessionId === sessionId)).toEqual([]);

    bed.server.push({ text: 'It was swordfish.' });
    const before = bed.server.requests.length;
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'what was it?' }] });
    expect(agentText(second, sessionId)).toBe('It was swordfish.');
    expect(bed.server.requests[before]!.model).toBe('big-model');
    expect(JSON.stringify(bed.server.requests[before]!.messages)).toContain('remember swordfish');

    await expect(second.agent.request('session/resume', { sessionId: 'no-such-session', cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
  });

  it('sends session_info_update (title, updatedAt) and usage_update after a turn', async () => {
    const cwd = bed.project();
    mkdirSync(join(cwd, '.plaited'), { recursive: true });
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agent: { contextWindow: 32_000 } }));
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ text: 'Sure.', usage: { prompt_tokens: 1200, completion_tokens: 30 } });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Fix the login bug\nmore detail' }] });
    expect(updatesOf(cli, sessionId, 'usage_update')).toEqual([{ sessionUpdate: 'usage_update', used: 1230, size: 32_000 }]);
    const info = updatesOf(cli, sessionId, 'session_info_update') as Array<acp.SessionInfoUpdate>;
    expect(info).toHaveLength(1);
    expect(info[0]!.title).toBe('Fix the login bug');
    expect(Number.isNaN(Date.parse(info[0]!.updatedAt ?? ''))).toBe(false);
  });
});

describe('ACP auth (v1)', () => {
  // A remote endpoint (TEST-NET-1, never contacted): an OpenAI-compatible model there needs a key.
  const remote = ['--model', 'openai-compatible:gpt-remote', '--base-url', 'http://192.0.2.1/v1'];

  it('without a key: advertises the env-var method, and session/new answers auth-required', async () => {
    const cwd = bed.project();
    const cli = bed.track(startAcpCli({ cwd, args: remote, env: { PLAITED_API_KEY: '' } }));
    const init = await initialize(cli);
    expect(init.authMethods).toEqual([expect.objectContaining({ id: 'plaited-api-key', _meta: { envVar: 'PLAITED_API_KEY' } })]);
    await expect(cli.agent.request('session/new', { cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32000 });
    await expect(cli.agent.request('authenticate', { methodId: 'plaited-api-key' })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('PLAITED_API_KEY'),
    });
    await expect(cli.agent.request('authenticate', { methodId: 'oauth' })).rejects.toMatchObject({ code: -32602 });
  });

  it('with the key in the environment: authenticate succeeds and sessions open', async () => {
    const cwd = bed.project();
    const cli = bed.track(startAcpCli({ cwd, args: remote, env: { PLAITED_API_KEY: 'sk-test' } }));
    const init = await initialize(cli);
    expect(init.agentCapabilities?.auth).toEqual({ logout: {} });
    expect(await cli.agent.request('authenticate', { methodId: 'plaited-api-key' })).toEqual({});
    const session = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    expect(session.sessionId).toBeTruthy();
    // Logged out, this connection needs authenticate again.
    expect(await cli.agent.request('logout', {})).toEqual({});
    await expect(cli.agent.request('session/new', { cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32000 });
    await expect(cli.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'hi' }] })).rejects.toMatchObject({ code: -32000 });
    await cli.agent.request('authenticate', { methodId: 'plaited-api-key' });
    expect((await cli.agent.request('session/new', { cwd, mcpServers: [] })).sessionId).toBeTruthy();
  });
});
