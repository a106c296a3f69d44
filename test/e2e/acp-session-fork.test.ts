import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { agentText, CLI, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { initializeV2, startAcpV2Cli, statesOf } from '../helpers/acp-v2-cli.js';
import { acpTestBed } from '../helpers/acp-test-bed.js';

/** `session/fork` (unstable ACP v1) through the built CLI, every message checked against the SDK's unstable v1 schema. */
const bed = acpTestBed({ prefix: 'plaited-fork-' });

const folder = bed.project;
function start(cwd: string): AcpCli {
  const cli = startAcpCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', bed.server.url], unstable: true });
  bed.track(cli);
  return cli;
}
type ForkResponse = { sessionId: string; modes?: unknown; configOptions?: unknown[] };
const fork = (cli: AcpCli, params: Record<string, unknown>) => cli.agent.request('session/fork' as never, params as never) as Promise<ForkResponse>;
/** What the model was sent in the last request, as text. */
const lastModelInput = () => JSON.stringify(bed.server.requests.at(-1)!.messages);
async function prompt(cli: AcpCli, sessionId: string, text: string, reply: string): Promise<void> {
  bed.server.push({ text: reply });
  const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  expect(response.stopReason).toBe('end_turn');
}
/** The replay of `session/load`: the text of every update, in order. */
async function replayText(cli: AcpCli, sessionId: string, cwd: string): Promise<string> {
  const from = cli.updates.length;
  await cli.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
  return JSON.stringify(cli.updates.slice(from).filter((n) => n.sessionId === sessionId).map((n) => n.update));
}

describe('ACP session/fork (unstable v1)', () => {
  it('--help lists session/fork as unstable, beside the stable v1 entry', () => {
    const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/stable entry.*\n.*session\/fork \(unstable/);
  });

  it('forks the history so far into a new session with its own cwd; both go their own way, survive a restart, are listed and load', async () => {
    const cwd = folder();
    const elsewhere = folder();
    const cli = start(cwd);
    const init = await initialize(cli);
    expect((init.agentCapabilities?.sessionCapabilities as Record<string, unknown>).fork).toEqual({});

    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ toolCalls: [{ name: 'plan', arguments: { items: [{ content: 'count the apples', priority: 'high' }] } }] });
    await prompt(cli, sessionId, 'plan the apples', 'Planned the apples.');

    const forked = await fork(cli, { sessionId, cwd: elsewhere, mcpServers: [] });
    expect(forked.sessionId).not.toBe(sessionId);
    expect(forked.configOptions?.length).toBeGreaterThan(0);

    // The fork continues from the copied history: the model sees the first prompt, the plan's result and the answer.
    await prompt(cli, forked.sessionId, 'fork question', 'Fork answer.');
    expect(lastModelInput()).toContain('plan the apples');
    expect(lastModelInput()).toContain('count the apples');
    expect(lastModelInput()).toContain('Planned the apples.');
    expect(agentText(cli, forked.sessionId)).toBe('Fork answer.');
    // The original never sees the fork's turn, and the fork never sees the original's.
    await prompt(cli, sessionId, 'original question', 'Original answer.');
    expect(lastModelInput()).toContain('plan the apples');
    expect(lastModelInput()).not.toContain('fork question');
    await prompt(cli, forked.sessionId, 'fork again', 'Fork again.');
    expect(lastModelInput()).toContain('fork question');
    expect(lastModelInput()).not.toContain('original question');
    await cli.close();

    const again = start(cwd);
    await initialize(again);
    // A fork of the fork, found through the request's cwd (its project's store is not open in this process yet).
    const second = await fork(again, { sessionId: forked.sessionId, cwd: elsewhere, mcpServers: [] });
    expect((await again.agent.request('session/list', { cwd })).sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    const forkListed = (await again.agent.request('session/list', { cwd: elsewhere })).sessions;
    expect(forkListed.map((s) => s.sessionId).sort()).toEqual([forked.sessionId, second.sessionId].sort());
    expect(forkListed.every((s) => s.cwd === elsewhere)).toBe(true);

    const original = await replayText(again, sessionId, cwd);
    expect(original).toContain('plan the apples');
    expect(original).toContain('original question');
    expect(original).not.toContain('fork question');
    const copy = await replayText(again, forked.sessionId, elsewhere);
    expect(copy).toContain('plan the apples');
    expect(copy).toContain('count the apples'); // the plan
    expect(copy).toContain('fork question');
    expect(copy).not.toContain('original question');
  });

  it("the fork's plan is the source's: the model goes on updating the items the client was shown, and the source's plan stays its own", async () => {
    const cwd = folder();
    const cli = start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ toolCalls: [{ name: 'plan', arguments: { items: [{ id: 'apples', content: 'count the apples' }, { id: 'pears', content: 'count the pears' }] } }] });
    await prompt(cli, sessionId, 'plan the fruit', 'Planned.');
    const forked = await fork(cli, { sessionId, cwd, mcpServers: [] });

    bed.server.push({ toolCalls: [{ name: 'plan', arguments: { items: [{ id: 'apples', status: 'completed' }] } }] });
    await prompt(cli, forked.sessionId, 'the apples are counted', 'Updated.');
    const result = JSON.stringify(bed.server.requests.at(-1)!.messages.filter((message) => message.role === 'tool').at(-1));
    expect(result).not.toMatch(/error|unknown|required/i);
    const plans = cli.updates.filter((n) => n.sessionId === forked.sessionId && n.update.sessionUpdate === 'plan');
    expect((plans.at(-1)!.update as { entries: Array<{ content: string; status: string }> }).entries.map((entry) => [entry.content, entry.status])).toEqual([
      ['count the apples', 'completed'],
      ['count the pears', 'pending'],
    ]);

    // The source's plan did not move with the fork's.
    bed.server.push({ toolCalls: [{ name: 'plan', arguments: { items: [{ id: 'pears', status: 'in_progress' }] } }] });
    await prompt(cli, sessionId, 'on to the pears', 'Updated.');
    const own = cli.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'plan');
    expect((own.at(-1)!.update as { entries: Array<{ content: string; status: string }> }).entries.map((entry) => [entry.content, entry.status])).toEqual([
      ['count the apples', 'pending'],
      ['count the pears', 'in_progress'],
    ]);
  });

  it('refuses to fork a session whose turn is running, naming cause and fix; the source then forks once idle', async () => {
    const cwd = folder();
    const cli = start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    let release!: () => void;
    bed.server.push({ text: 'Slow answer.', until: new Promise<void>((done) => (release = done)) });
    const before = bed.server.requests.length;
    const running = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'take your time' }] });
    await waitFor(() => bed.server.requests.length > before, 10_000, 'the model request');

    const refused = await fork(cli, { sessionId, cwd, mcpServers: [] }).then(
      () => undefined,
      (error: { code: number; message: string; data?: unknown }) => error,
    );
    expect(refused).toMatchObject({ code: -32602, data: { code: 'session_busy', sessionId } });
    expect(refused!.message).toMatch(/turn running.*wait for it to end.*session\/cancel.*then fork/);
    await expect(fork(cli, { sessionId: 'no-such-session', cwd, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
    await expect(fork(cli, { sessionId, cwd: 'relative/dir' })).rejects.toMatchObject({ code: -32602 });

    release();
    expect((await running).stopReason).toBe('end_turn');
    const forked = await fork(cli, { sessionId, cwd, mcpServers: [] });
    expect((await cli.agent.request('session/list', { cwd })).sessions.map((s) => s.sessionId).sort()).toEqual([sessionId, forked.sessionId].sort());
  });

  it('the v2 draft forks too (its unstable schema has session/fork): the fork replays the copied history and answers with it', async () => {
    const cwd = folder();
    const cli = startAcpV2Cli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', bed.server.url], unstable: true });
    bed.track(cli);
    await initializeV2(cli);
    // The stable draft client drops keys its schema lacks: the capability is read from the wire.
    const answer = cli.validator.messages.find((m) => m.direction === 'agent' && (m.message.result as { protocolVersion?: number } | undefined)?.protocolVersion === 2);
    expect((answer?.message.result as { capabilities: { session: Record<string, unknown> } }).capabilities.session.fork).toEqual({});
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ text: 'Draft answer.' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'draft question' }] });
    await waitFor(() => statesOf(cli, sessionId).includes('idle:end_turn'), 20_000, 'the idle state');

    const forked = (await cli.agent.request('session/fork' as never, { sessionId, cwd, mcpServers: [] } as never)) as { sessionId: string; configOptions?: unknown[] };
    expect(forked.sessionId).not.toBe(sessionId);
    expect(forked.configOptions?.length).toBeGreaterThan(0);
    const from = cli.updates.length;
    await cli.agent.request('session/resume', { sessionId: forked.sessionId, cwd, replayFrom: { type: 'start' } });
    await waitFor(() => statesOf({ updates: cli.updates.slice(from) }, forked.sessionId).length > 0, 10_000, 'the replay snapshot');
    const replayed = JSON.stringify(cli.updates.slice(from).filter((n) => n.sessionId === forked.sessionId).map((n) => n.update));
    expect(replayed).toContain('draft question');
    expect(replayed, replayed).toContain('Draft answer.');
  });
});
