import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { initialize, startAcpCli } from '../helpers/acp-cli.js';
import { initializeV2, startAcpV2Cli, statesOf, type AcpV2Cli } from '../helpers/acp-v2-cli.js';
import { acpTestBed } from '../helpers/acp-test-bed.js';

/** The v2 draft's conformance points on message ids and list filters (ACP-LIST-202, ACP-PROMPT-203, ACP-RESUME-204/205). */
const bed = acpTestBed({ prefix: 'plaited-v2-msg-' });

const project = bed.project;
const model = () => ['--model', 'openai-compatible:scripted', '--base-url', bed.server.url];
function start(cwd: string): AcpV2Cli {
  const cli = startAcpV2Cli({ cwd, args: model() });
  bed.track(cli);
  return cli;
}
const updatesOf = (cli: AcpV2Cli, sessionId: string, from = 0) =>
  cli.updates.slice(from).filter((n) => n.sessionId === sessionId).map((n) => n.update as { sessionUpdate: string; messageId?: string; content?: unknown });

describe('ACP v2 (draft): message ids and list filters', () => {
  it('session/list filtered by a folder that does not exist answers an empty list, in v2 and v1; a relative path is still -32602', async () => {
    const cwd = project();
    const missing = join(cwd, 'no', 'such', 'folder');
    const cli = start(cwd);
    await initializeV2(cli);
    await cli.agent.request('session/new', { cwd, mcpServers: [] });
    expect((await cli.agent.request('session/list', { cwd: missing })).sessions).toEqual([]);
    await expect(cli.agent.request('session/list', { cwd: 'relative/folder' })).rejects.toMatchObject({ code: -32602 });

    const v1 = startAcpCli({ cwd, args: model() });
    bed.track(v1);
    await initialize(v1);
    expect((await v1.agent.request('session/list', { cwd: missing })).sessions).toEqual([]);
    expect((await v1.agent.request('session/list', { cwd })).sessions).toHaveLength(1);
  });

  it('echoes the prompt with the messageId it answered; a resume after a restart replays it with that id, and each agent message opens with its whole-message update', async () => {
    const cwd = project();
    const first = start(cwd);
    await initializeV2(first);
    const { sessionId } = await first.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ text: 'First answer.' });
    const { messageId } = await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello there' }] });
    await waitFor(() => statesOf(first, sessionId).includes('idle:end_turn'), 20_000, 'the idle state');
    const live = updatesOf(first, sessionId);
    expect(live.filter((u) => u.sessionUpdate === 'user_message')).toEqual([{ sessionUpdate: 'user_message', messageId, content: [{ type: 'text', text: 'hello there' }] }]);
    const liveAgentIds = [...new Set(live.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.messageId))];
    expect(liveAgentIds).toHaveLength(1);
    await first.close();

    const second = start(cwd);
    await initializeV2(second);
    await second.agent.request('session/resume', { sessionId, cwd, replayFrom: { type: 'start' } });
    // The snapshot follows the replay.
    await waitFor(() => statesOf(second, sessionId).length > 0, 10_000, 'the replay snapshot');
    const replayed = updatesOf(second, sessionId).filter((u) => u.sessionUpdate !== 'state_update' && u.sessionUpdate !== 'available_commands_update');
    expect(replayed.find((u) => u.sessionUpdate === 'user_message')).toEqual({ sessionUpdate: 'user_message', messageId, content: [{ type: 'text', text: 'hello there' }] });
    const primer = replayed.findIndex((u) => u.sessionUpdate === 'agent_message');
    const chunk = replayed.findIndex((u) => u.sessionUpdate === 'agent_message_chunk');
    expect(primer).toBeGreaterThanOrEqual(0);
    expect(primer).toBeLessThan(chunk);
    expect(replayed[primer]!.messageId).toBe(replayed[chunk]!.messageId);
    // The agent message keeps its live id too.
    expect(replayed[chunk]).toEqual({ sessionUpdate: 'agent_message_chunk', messageId: liveAgentIds[0], content: { type: 'text', text: 'First answer.' } });
  });

  it("an MCP server's prompt as a slash command: /fx:greet's turn echoes the rendered prompt under the answered messageId, and a missing argument ends the turn in error without a model call", async () => {
    const cwd = project();
    const fixtureServer = join(import.meta.dirname, '../fixtures/mcp/fixture-server.mjs');
    mkdirSync(join(cwd, '.plaited'));
    const server = { id: 'fx', transport: 'stdio', command: process.execPath, args: [fixtureServer, '--name', 'fx'] };
    writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: join(cwd, 'no-such-embedder.gguf') }, mcp: { servers: [server] } }));
    const cli = start(cwd);
    await initializeV2(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    const commands = () =>
      updatesOf(cli, sessionId)
        .filter((u) => u.sessionUpdate === 'available_commands_update')
        .map((u) => (u as unknown as { availableCommands: Array<{ name: string }> }).availableCommands.map((command) => command.name).sort().join(' '))
        .at(-1);
    await waitFor(() => commands() === 'fx:greet fx:review fx:summarize mcp permissions', 20_000, 'the prompts announced with /mcp and /permissions');

    bed.server.push({ text: 'Greeted.' });
    const { messageId } = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:greet Ann' }] });
    await waitFor(() => statesOf(cli, sessionId).includes('idle:end_turn'), 20_000, 'the turn done');
    const echo = updatesOf(cli, sessionId).find((u) => u.sessionUpdate === 'user_message');
    expect(echo).toMatchObject({ messageId, content: expect.arrayContaining([{ type: 'text', text: 'Hi Ann!' }]) });
    expect(JSON.stringify(bed.server.requests.at(-1)!.messages.at(-1))).toContain('Hi Ann!');

    const requests = bed.server.requests.length;
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/fx:review' }] });
    await waitFor(() => statesOf(cli, sessionId).includes('idle:error'), 20_000, 'the turn ended in error');
    const idle = updatesOf(cli, sessionId).findLast((u) => u.sessionUpdate === 'state_update') as unknown as { error: { code: number; message: string; data: unknown } };
    expect(idle.error.message).toContain('/fx:review needs the argument "diff"');
    // Input the user can fix, as v1 says it: -32602, the agent's code in data.
    expect(idle.error).toMatchObject({ code: -32602, data: { code: 'invalid_input' } });
    expect(bed.server.requests).toHaveLength(requests);
  });
});
