import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { TEST_AUTH_HEADERS } from '../helpers/test-auth-token.js';
import { AcpSchemaValidator, CLI, initialize, startAcpCli } from '../helpers/acp-cli.js';
import { startHttpCli } from '../adapters/mcp-server/mcp-http-cli.js';
import { initializeV2, startAcpV2Cli, statesOf, type AcpV2Cli } from '../helpers/acp-v2-cli.js';
import { sharedAcpBed } from '../helpers/shared-acp-bed.js';

const bed = sharedAcpBed({ prefix: 'plaited-v2-' });

const project = bed.project;
const model = () => ['--model', 'openai-compatible:scripted', '--base-url', bed.server.url];
const idle = (cli: AcpV2Cli, sessionId: string, count = 1) =>
  waitFor(() => statesOf(cli, sessionId).filter((state) => state.startsWith('idle')).length >= count, 20_000, 'an idle state update');
const text = (cli: AcpV2Cli, sessionId: string) =>
  cli.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
    .map((n) => ((n.update as { content: { text?: string } }).content.text ?? ''))
    .join('');

/**
 * The v2 client's tests on the scripted model share one CLI (a start is most of a test's CPU), each
 * in a session and folder of its own, reading only its own session's updates and permission
 * questions. The v1 client, the remote model's auth and the HTTP face keep CLIs of their own.
 */
describe('ACP v2 (draft) beside v1', () => {
  const shared = bed.sharedV2();

  it('routes by the initialize version: v1 clients see v1, v2 clients the draft', async () => {
    const cwd = project();
    const v1cli = startAcpCli({ cwd, args: model() });
    bed.track(v1cli);
    expect((await initialize(v1cli)).protocolVersion).toBe(1);

    const cli = shared.cli;
    const init = shared.init;
    expect(init.protocolVersion).toBe(2);
    expect(init.capabilities?.session).toMatchObject({ delete: {}, additionalDirectories: {}, mcp: { stdio: {}, http: {} } });
    await expect(cli.agent.request('session/new', { cwd, additionalDirectories: ['/no/such/dir'] })).rejects.toMatchObject({ code: -32602 });
    expect((await cli.agent.request('session/new', { cwd, additionalDirectories: [project()] })).sessionId).toBeTruthy();
    expect(init.info.name).toBe('plaited-agent');
  });

  it('--help marks v2 as experimental', () => {
    const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(`${help.stdout}${help.stderr}`).toMatch(/ACP v2 draft \(experimental\)/);
  });

  it('a prompt answers a message id at once; the turn reports running then idle with its stop reason', async () => {
    const cwd = project();
    const cli = shared.cli;
    const session = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    expect(session.configOptions?.map((option) => option.configId)).toEqual(['mode', 'model']);
    bed.server.push({ text: 'Hello from v2.' });
    const response = await cli.agent.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(response.messageId).toBeTruthy();
    await idle(cli, session.sessionId);
    expect(statesOf(cli, session.sessionId)).toEqual(['running', 'idle:end_turn']);
    expect(text(cli, session.sessionId)).toBe('Hello from v2.');
    const kinds = cli.updates.filter((n) => n.sessionId === session.sessionId).map((n) => n.update.sessionUpdate);
    expect(kinds).toContain('usage_update');
    expect(kinds).toContain('session_info_update');
  });

  it('tool calls are upserts, a permission question shows requires_action, and plans carry an id', async () => {
    const cwd = project();
    const cli = shared.cli;
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const own = (n: { sessionId: string }) => n.sessionId === sessionId;
    bed.server.push(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'v2.txt', content: 'from v2' } }] },
      { toolCalls: [{ name: 'plan', arguments: { items: [{ content: 'check it', priority: 'high' }] } }] },
      { text: 'Written.' },
    );
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write it' }] });
    await idle(cli, sessionId);
    expect(readFileSync(join(cwd, 'v2.txt'), 'utf8')).toBe('from v2');
    expect(cli.permissions.filter(own)).toHaveLength(1);
    expect(cli.permissions.filter(own)[0]!.subject).toMatchObject({ type: 'tool_call', toolCall: { kind: 'edit' } });
    expect(statesOf(cli, sessionId)).toEqual(['running', 'requires_action', 'running', 'idle:end_turn']);
    const calls = cli.updates.filter((n) => own(n) && n.update.sessionUpdate === 'tool_call_update').map((n) => n.update as { status?: string; content?: unknown[] });
    expect(calls.some((update) => update.status === 'completed' && JSON.stringify(update.content).includes('"diff"'))).toBe(true);
    const plan = cli.updates.find((n) => own(n) && n.update.sessionUpdate === 'plan_update')?.update;
    expect(plan).toMatchObject({ plan: { type: 'items', planId: 'plan', entries: [{ content: 'check it' }] } });
  });

  it('session/cancel ends the turn idle:cancelled; close, resume, delete and list work as in v1', async () => {
    const cwd = project();
    const cli = shared.cli;
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const own = () => cli.updates.filter((n) => n.sessionId === sessionId);
    bed.server.push({ text: 'slow slow slow slow', chunkDelayMs: 2_000 });
    const before = bed.server.requests.length;
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go slowly' }] });
    await waitFor(() => bed.server.requests.length > before, 10_000, 'the model request');
    await cli.agent.notify('session/cancel', { sessionId });
    await idle(cli, sessionId);
    expect(statesOf(cli, sessionId).at(-1)).toBe('idle:cancelled');

    await cli.agent.request('session/close', { sessionId });
    const updatesAtClose = own().length;
    const resumed = await cli.agent.request('session/resume', { sessionId, cwd });
    expect(resumed.configOptions?.length).toBe(2);
    // Resume sends a state snapshot (nothing is replayed).
    await waitFor(() => own().length > updatesAtClose, 10_000, 'the resume snapshot');
    expect(own().slice(updatesAtClose).map((n) => n.update)).toEqual([{ sessionUpdate: 'state_update', state: 'idle', background: [] }]);

    // With replayFrom: start, the history comes first: the user's message, then the snapshot.
    const beforeReplay = own().length;
    await cli.agent.request('session/resume', { sessionId, cwd, replayFrom: { type: 'start' } });
    await waitFor(() => own().slice(beforeReplay).some((n) => n.update.sessionUpdate === 'state_update'), 10_000, 'the replay snapshot');
    const replayed = own().slice(beforeReplay).map((n) => n.update);
    expect(replayed[0]).toMatchObject({ sessionUpdate: 'user_message', content: [{ type: 'text', text: 'go slowly' }] });
    expect(replayed.at(-1)).toEqual({ sessionUpdate: 'state_update', state: 'idle', background: [] });

    const set = await cli.agent.request('session/set_config_option', { sessionId, configId: 'mode', type: 'id', value: 'plan' });
    expect(set.configOptions?.find((option) => option.configId === 'mode')).toMatchObject({ currentValue: 'plan' });

    await cli.agent.request('session/delete', { sessionId });
    const listed = await cli.agent.request('session/list', { cwd });
    expect(listed.sessions.map((s) => s.sessionId)).not.toContain(sessionId);
    await expect(cli.agent.request('session/resume', { sessionId, cwd })).rejects.toMatchObject({ code: -32002 });
  });

  it('auth: login and logout for a remote model that needs a key', async () => {
    const cwd = project();
    const remote = ['--model', 'openai-compatible:gpt-remote', '--base-url', 'http://192.0.2.1/v1'];
    const keyless = startAcpV2Cli({ cwd, args: remote, env: { PLAITED_API_KEY: '' } });
    bed.track(keyless);
    const init = await initializeV2(keyless);
    expect(init.authMethods).toEqual([expect.objectContaining({ type: 'agent', methodId: 'plaited-api-key' })]);
    await expect(keyless.agent.request('session/new', { cwd })).rejects.toMatchObject({ code: -32000 });
    await expect(keyless.agent.request('auth/login', { methodId: 'plaited-api-key' })).rejects.toMatchObject({ code: -32000 });

    const keyed = startAcpV2Cli({ cwd, args: remote, env: { PLAITED_API_KEY: 'sk-test' } });
    bed.track(keyed);
    await initializeV2(keyed);
    await keyed.agent.request('session/new', { cwd });
    await keyed.agent.request('auth/logout', {});
    await expect(keyed.agent.request('session/new', { cwd })).rejects.toMatchObject({ code: -32000 });
    await keyed.agent.request('auth/login', { methodId: 'plaited-api-key' });
    expect((await keyed.agent.request('session/new', { cwd })).sessionId).toBeTruthy();
  });
});

describe('ACP v2 (draft) over HTTP', () => {
  it('the HTTP face routes a v2 initialize to the draft too', async () => {
    const cwd = project();
    mkdirSync(join(cwd, '.plaited'));
    const http = await startHttpCli({ cwd, args: model(), urlPattern: /ACP over HTTP at (http:\/\/\S+\/acp)/ });
    try {
      const raw = createHttpStream(http.url, { headers: TEST_AUTH_HEADERS });
      const validator = new AcpSchemaValidator(2);
      const updates: v2.UpdateSessionNotification[] = [];
      const tee = (direction: 'agent' | 'client') =>
        new TransformStream<v2.AnyMessage, v2.AnyMessage>({
          transform(message, controller) {
            validator.check(direction, message as never);
            controller.enqueue(message);
          },
        });
      const fromAgent = tee('agent');
      const toAgent = tee('client');
      void raw.readable.pipeTo(fromAgent.writable as never).catch(() => undefined);
      void toAgent.readable.pipeTo(raw.writable as never).catch(() => undefined);
      const connection = v2
        .client({ name: 'plaited-v2-http-test' })
        .onNotification('session/update', ({ params }) => {
          updates.push(params);
        })
        .connect({ readable: fromAgent.readable, writable: toAgent.writable });
      const init = await connection.agent.request('initialize', { protocolVersion: 2, info: { name: 'plaited-v2-http-test', version: '1' }, capabilities: {} });
      expect(init.protocolVersion).toBe(2);
      const { sessionId } = await connection.agent.request('session/new', { cwd });
      bed.server.push({ text: 'v2 over http' });
      await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
      await waitFor(() => statesOf({ updates }, sessionId).includes('idle:end_turn'), 20_000, 'idle over HTTP');
      connection.close();
      expect(validator.errors, validator.errors.join('\n')).toEqual([]);
    } finally {
      await http.close();
    }
  });
});
