import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentText, initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { newSession, project, prompt, route, start, state, systemOf, updatesOf, useScenario, waitFor } from './behaviours-kit.js';
import { closeChecked } from '../helpers/close-checked.js';

useScenario();

/**
 * The tests on the default config share one CLI and a model server that lives as long as it (a
 * start is ~1 s of CPU; `state.server` is per test): each opens a session in a project folder of
 * its own and answers its own session's permission requests (`answers`). After each test no
 * scripted step may be left over. The plan-mode test restarts it; tests with a config of their
 * own start their own CLI.
 */
let shared: { cli: AcpCli; server: ScriptedOpenAIServer };
const answers = new Map<string, (request: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse> | acp.RequestPermissionResponse>();
beforeAll(async () => {
  const server = await startScriptedOpenAIServer();
  const cli = startAcpCli({
    cwd: project(),
    args: ['--model', 'openai-compatible:scripted', '--base-url', server.url],
    onPermission: (request) => answers.get(request.sessionId)?.(request) ?? { outcome: { outcome: 'selected', optionId: request.options[0]!.optionId } },
  });
  await initialize(cli);
  shared = { cli, server };
});
afterAll(async () => {
  await shared?.cli.close();
  await shared?.server.close();
});
afterEach(() => {
  expect(shared.cli.validator.errors, shared.cli.validator.errors.join('\n')).toEqual([]);
  expect(shared.server.pending(), 'scripted steps the test left unused').toBe(0);
});
const sharedSession = async (cwd: string) => shared.cli.agent.request('session/new', { cwd, mcpServers: [] });

const lastUserText = (messages: Array<{ role: string; content?: unknown }>) =>
  JSON.stringify(messages.filter((message) => message.role === 'user').at(-1)?.content ?? '');

describe('behaviours through the CLI over ACP', () => {
  it('steers during a running tool call: the steering prompt ends once absorbed, the model sees it after the tool result', async () => {
    const cwd = project();
    const { cli, server } = shared;
    const { sessionId } = await sharedSession(cwd);
    server.push({ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 1; echo slept-well' } }] }, { text: 'Switched to the new plan.' });
    const first = prompt(cli, sessionId, 'run the slow thing');
    await waitFor(() => updatesOf(cli, sessionId, 'tool_call_update').some((update) => update.status === 'in_progress'), 'the tool to start');
    const before = server.requests.length;
    const steer = await prompt(cli, sessionId, 'actually, focus on docs');
    // Absorbed means the next model step was built with it (its request may still be on the wire).
    expect(steer.stopReason).toBe('end_turn');
    expect((await first).stopReason).toBe('end_turn');
    expect(server.requests.length).toBe(before + 1);
    const messages = server.requests[before]!.messages;
    const text = JSON.stringify(messages);
    expect(text.indexOf('slept-well')).toBeGreaterThan(-1);
    expect(text.indexOf('actually, focus on docs')).toBeGreaterThan(text.indexOf('slept-well'));
    expect(agentText(cli, sessionId)).toContain('Switched to the new plan.');
  });

  it('a steering prompt supersedes a call still waiting for permission', async () => {
    const cwd = project();
    let answer!: (response: acp.RequestPermissionResponse) => void;
    const asked: acp.RequestPermissionRequest[] = [];
    const { cli, server } = shared;
    const { sessionId } = await sharedSession(cwd);
    answers.set(sessionId, (request) => {
      asked.push(request);
      return new Promise((resolve) => (answer = resolve));
    });
    const seen = cli.validator.messages.length;
    server.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'nope.txt', content: 'x' } }] }, { text: 'Not writing.' });
    const first = prompt(cli, sessionId, 'write nope.txt');
    await waitFor(() => asked.length === 1, 'the permission request');
    const before = server.requests.length;
    const steer = await prompt(cli, sessionId, 'never mind, do not write');
    expect(steer.stopReason).toBe('end_turn');
    expect((await first).stopReason).toBe('end_turn');
    // The client was told the question no longer matters; its late answer changes nothing.
    await waitFor(
      () => cli.validator.messages.slice(seen).some(({ direction, message }) => direction === 'agent' && message.method === '$/cancel_request'),
      'the $/cancel_request',
    );
    answer({ outcome: { outcome: 'selected', optionId: 'allow-once' } });
    expect(existsSync(join(cwd, 'nope.txt'))).toBe(false);
    const text = JSON.stringify(server.requests[before]!.messages);
    expect(text).toContain('superseded by new instruction');
    expect(text).toContain('never mind, do not write');
    expect(updatesOf(cli, sessionId, 'tool_call_update').at(-1)).toMatchObject({ status: 'failed' });
  });

  it('queues two messages with sendMode "queue": each runs as its own turn, in order', async () => {
    const cwd = project(JSON.stringify({ agent: { sendMode: 'queue' } }));
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push({ text: 'answer one', chunkDelayMs: 30 }, { text: 'answer two' }, { text: 'answer three' });
    const done: string[] = [];
    const results = await Promise.all(
      ['one', 'two', 'three'].map((text) =>
        prompt(cli, sessionId, `message ${text}`).then((response) => {
          done.push(text);
          return response;
        }),
      ),
    );
    expect(results.map((response) => response.stopReason)).toEqual(['end_turn', 'end_turn', 'end_turn']);
    expect(done).toEqual(['one', 'two', 'three']);
    expect(state.server.requests.map((request) => lastUserText(request.messages))).toEqual([
      expect.stringContaining('message one'),
      expect.stringContaining('message two'),
      expect.stringContaining('message three'),
    ]);
    expect(JSON.stringify(state.server.requests[2]!.messages)).toContain('answer two');
  });

  it('config hooks rewrite bash arguments and deny rm -rf', async () => {
    const cwd = project(
      `export default {
        tools: { allow: ['bash'] },
        hooks: {
          onToolCall: [
            (event) => (event.toolName === 'bash' && /rm\\s+-rf/.test(event.args.command) ? { deny: 'no rm -rf, ever' } : undefined),
            (event) => (event.toolName === 'bash' ? { args: { command: event.args.command.replace('SECRET', 'redacted') } } : undefined),
          ],
        },
      };`,
      'config.ts',
    );
    writeFileSync(join(cwd, 'keep.txt'), 'keep me');
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push(
      {
        toolCalls: [
          { name: 'bash', arguments: { command: 'echo SECRET > out.txt' } },
          { name: 'bash', arguments: { command: 'rm -rf keep.txt' } },
        ],
      },
      { text: 'done' },
    );
    const before = state.server.requests.length;
    expect((await prompt(cli, sessionId, 'go')).stopReason).toBe('end_turn');
    expect(readFileSync(join(cwd, 'out.txt'), 'utf8').trim()).toBe('redacted');
    expect(readFileSync(join(cwd, 'keep.txt'), 'utf8')).toBe('keep me');
    expect(JSON.stringify(state.server.requests[before + 1]!.messages)).toContain('Denied by a hook: no rm -rf, ever');
  });

  it('plan mode refuses a write, then executes after the exit_plan_mode request switches modes; the mode is persisted', async () => {
    const cwd = project();
    const asked: acp.RequestPermissionRequest[] = [];
    const { cli, server } = shared;
    const { sessionId } = await sharedSession(cwd);
    answers.set(sessionId, (request) => {
      asked.push(request);
      return { outcome: { outcome: 'selected', optionId: request.toolCall.kind === 'switch_mode' ? 'mode:default' : 'allow-once' } };
    });
    await cli.agent.request('session/set_mode', { sessionId, modeId: 'plan' });
    server.push(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'plan.md', content: 'early' } }] },
      { toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: '1. Write plan.md' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'plan.md', content: 'executed' } }] },
      { text: 'Plan carried out.' },
    );
    const before = server.requests.length;
    expect((await prompt(cli, sessionId, 'plan then write plan.md')).stopReason).toBe('end_turn');
    const firstTools = (server.requests[before]!.tools ?? []).map((tool) => tool.function.name);
    expect(firstTools).toContain('exit_plan_mode');
    expect(firstTools).not.toContain('write_file');
    expect(JSON.stringify(server.requests[before + 1]!.messages)).toContain('plan mode');
    expect(asked.map((request) => request.toolCall.kind)).toEqual(['switch_mode', 'edit']);
    expect(asked[0]!.options.map((option) => option.optionId)).toEqual(['mode:default', 'mode:accept-edits', 'stay-in-plan']);
    expect(updatesOf(cli, sessionId, 'current_mode_update').map((update) => update.currentModeId)).toEqual(['plan', 'default']);
    expect(readFileSync(join(cwd, 'plan.md'), 'utf8')).toBe('executed');
    // The shared CLI's last test: it is restarted (the session is stored in its project folder).
    await closeChecked(cli);
    const again = start(cwd);
    await initialize(again);
    const loaded = await again.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('default');
  });

  it('three parallel sub-agents finish in request order, one failing; their tool calls nest under the task calls', async () => {
    const cwd = project(
      JSON.stringify({ agents: { reader: { description: 'Reads files', systemPrompt: 'You are the READER.', tools: ['read_file', 'glob'] } } }),
    );
    writeFileSync(join(cwd, 'alpha.txt'), 'alpha says hi');
    let parentCalls = 0;
    route((request) => {
      if (systemOf(request).includes('You are the READER.')) {
        const job = /job (\w+)/.exec(JSON.stringify(request.messages))?.[1];
        const hasResult = request.messages.some((message) => message.role === 'tool');
        if (job === 'beta') return { status: 400, errorBody: { error: { message: 'beta is broken', type: 'invalid_request_error' } } };
        if (job === 'alpha' && !hasResult) return { toolCalls: [{ name: 'read_file', arguments: { path: 'alpha.txt' } }] };
        return { text: `report ${job}`, delayMs: job === 'gamma' ? 0 : 150 };
      }
      parentCalls++;
      if (parentCalls === 1) {
        return {
          toolCalls: ['alpha', 'beta', 'gamma'].map((job) => ({ name: 'task', arguments: { agent: 'reader', prompt: `job ${job}`, description: job } })),
        };
      }
      return { text: 'Collected the reports.' };
    });
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    expect((await prompt(cli, sessionId, 'split it')).stopReason).toBe('end_turn');
    const final = state.server.requests.filter((request) => !systemOf(request).includes('READER')).at(-1)!;
    const toolMessages = final.messages.filter((message) => message.role === 'tool');
    expect(toolMessages).toHaveLength(3);
    expect(String(toolMessages[0]!.content)).toContain('report alpha');
    expect(String(toolMessages[1]!.content)).toContain('beta is broken');
    expect(String(toolMessages[2]!.content)).toContain('report gamma');
    const calls = updatesOf(cli, sessionId, 'tool_call');
    const tasks = calls.filter((call) => (call.rawInput as { agent?: string }).agent === 'reader');
    expect(tasks).toHaveLength(3);
    const nested = calls.find((call) => call.title !== undefined && (call._meta as { parentToolCallId?: string } | undefined)?.parentToolCallId);
    expect(nested).toBeDefined();
    expect((nested!._meta as { parentToolCallId: string }).parentToolCallId).toBe(tasks[0]!.toolCallId);
    const results = updatesOf(cli, sessionId, 'tool_call_update').filter((update) => update.status === 'completed' || update.status === 'failed');
    expect(results.find((update) => update.toolCallId === tasks[1]!.toolCallId)?.status).toBe('failed');
    expect(results.find((update) => update.toolCallId === nested!.toolCallId)?.status).toBe('completed');
    // Children are not listed as sessions of their own.
    expect((await cli.agent.request('session/list', { cwd })).sessions.map((info) => info.sessionId)).toEqual([sessionId]);
  });

  it('parses xml-format tool calls from text and reports malformed ones to the model', async () => {
    const cwd = project(JSON.stringify({ agent: { toolCallFormat: 'xml' } }));
    writeFileSync(join(cwd, 'a.txt'), 'xml-visible content');
    const cli = start(cwd);
    const { sessionId } = await newSession(cli, cwd);
    state.server.push(
      {
        text:
          'Reading.\n<tool_call>{"tool": "read_file", "args": {"path": "a.txt"}}</tool_call>\n' +
          '<tool_call>{"tool": "glob", "args": {"pattern": </tool_call>',
      },
      { text: 'The file says xml-visible content.' },
    );
    const before = state.server.requests.length;
    expect((await prompt(cli, sessionId, 'read a.txt')).stopReason).toBe('end_turn');
    expect(state.server.requests[before]!.tools).toBeUndefined();
    expect(systemOf(state.server.requests[before]!)).toContain('<tool_call>');
    const shown = agentText(cli, sessionId);
    expect(shown).not.toContain('<tool_call>');
    expect(shown).toContain('The file says xml-visible content.');
    const feedback = lastUserText(state.server.requests[before + 1]!.messages);
    expect(feedback).toContain('<tool_result tool=\\"read_file\\">');
    expect(feedback).toContain('xml-visible content');
    expect(feedback).toContain('malformed <tool_call> block');
    const statuses = updatesOf(cli, sessionId, 'tool_call_update').map((update) => update.status).filter((status) => status === 'completed' || status === 'failed');
    expect(statuses.sort()).toEqual(['completed', 'failed']);
  });
});
