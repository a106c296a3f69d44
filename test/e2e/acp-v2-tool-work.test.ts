import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as v2 from '@agentclientprotocol/sdk/experimental/v2';
import { startScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { initializeV2, startAcpV2Cli, statesOf, type AcpV2Cli } from '../helpers/acp-v2-cli.js';
import { processesMatching, uniqueSleep } from '../helpers/process-list.js';
import { sharedAcpBed } from '../helpers/shared-acp-bed.js';

const bed = sharedAcpBed({ prefix: 'plaited-v2-' });

/**
 * The tests on the default config share one CLI (a start is most of a test's CPU), each in a session
 * and folder of its own, reading only its own session's updates; the test of the agent's exit runs
 * last on it and closes it. The compaction test keeps a CLI of its own (its own config).
 */
const shared = bed.sharedV2();

async function open(): Promise<{ cli: AcpV2Cli; sessionId: string; cwd: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-v2-work-'));
  const cli = shared.cli;
  const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
  return { cli, sessionId, cwd };
}

type Update = v2.SessionUpdate & Record<string, unknown>;
const updatesOf = (cli: AcpV2Cli, sessionId: string): Update[] => cli.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update as Update);
const idleCount = (cli: AcpV2Cli, sessionId: string) => statesOf(cli, sessionId).filter((state) => state.startsWith('idle:')).length;
const untilIdle = (cli: AcpV2Cli, sessionId: string, count = 1) => waitFor(() => idleCount(cli, sessionId) >= count, 30_000, 'the turn to end');
const toolUpdates = (cli: AcpV2Cli, sessionId: string, toolCallId: string) =>
  updatesOf(cli, sessionId).filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === toolCallId);
const terminalUpdates = (cli: AcpV2Cli, sessionId: string, terminalId?: string) =>
  updatesOf(cli, sessionId).filter((u) => u.sessionUpdate === 'terminal_update' && (!terminalId || u.terminalId === terminalId));
const outputOf = (cli: AcpV2Cli, sessionId: string, terminalId: string) =>
  updatesOf(cli, sessionId)
    .filter((u) => u.sessionUpdate === 'terminal_output_chunk' && u.terminalId === terminalId)
    .map((u) => Buffer.from(u.data as string, 'base64').toString('utf8'))
    .join('');
const prompt = (cli: AcpV2Cli, sessionId: string, text: string) => cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
/** What the model was told about a tool call (the tool message of a later request). */
const toolResultSent = (toolCallId: string) =>
  bed.server.requests.flatMap((request) => request.messages).find((message) => message.role === 'tool' && message.tool_call_id === toolCallId)?.content;

describe('ACP v2 (draft): cancelling one tool call', () => {
  it('tool_call/cancel stops a running sleep mid-turn: the process is gone, the call ends cancelled, the turn goes on to end_turn', async () => {
    const { cli, sessionId, cwd } = await open();
    const sleep = uniqueSleep();
    bed.server.push({ toolCalls: [{ id: 'long', name: 'bash', arguments: { command: `${sleep}; echo never` } }] }, { text: 'Skipped the sleep.' });
    await prompt(cli, sessionId, 'sleep a while');
    await waitFor(() => toolUpdates(cli, sessionId, 'long').some((u) => (u.capabilities as { cancel?: unknown } | undefined)?.cancel), 20_000, 'a cancellable tool call');
    await waitFor(() => processesMatching(sleep).length > 0, 10_000, 'the sleep to start');

    expect(await cli.agent.request('tool_call/cancel', { sessionId, toolCallId: 'long' })).toEqual({});
    await untilIdle(cli, sessionId);
    expect(statesOf(cli, sessionId).at(-1)).toBe('idle:end_turn');
    const final = toolUpdates(cli, sessionId, 'long').at(-1)!;
    expect(final).toMatchObject({ status: 'cancelled', capabilities: null });
    expect(processesMatching(sleep)).toEqual([]);
    expect(JSON.stringify(toolResultSent('long'))).toContain('The user cancelled this tool call while it ran');
    expect(updatesOf(cli, sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk' && JSON.stringify(u).includes('Skipped'))).toBe(true);

    // Already final, never seen, or in a session that does not exist: -32602.
    await expect(cli.agent.request('tool_call/cancel', { sessionId, toolCallId: 'long' })).rejects.toMatchObject({ code: -32602 });
    await expect(cli.agent.request('tool_call/cancel', { sessionId, toolCallId: 'no-such-call' })).rejects.toMatchObject({ code: -32602 });
    await expect(cli.agent.request('tool_call/cancel', { sessionId: 'no-such-session', toolCallId: 'long' })).rejects.toMatchObject({ code: -32602 });

    // A replay shows the call cancelled, and never offers a cancel for it again.
    const beforeReplay = updatesOf(cli, sessionId).length;
    await cli.agent.request('session/resume', { sessionId, cwd, replayFrom: { type: 'start' } });
    await waitFor(() => updatesOf(cli, sessionId).slice(beforeReplay).some((u) => u.sessionUpdate === 'state_update'), 10_000, 'the replay');
    const replayed = updatesOf(cli, sessionId).slice(beforeReplay).filter((u) => u.sessionUpdate === 'tool_call_update');
    expect(replayed.at(-1)).toMatchObject({ toolCallId: 'long', status: 'cancelled' });
    expect(replayed.some((u) => (u.capabilities as { cancel?: unknown } | null | undefined)?.cancel)).toBe(false);
  });
});

describe('ACP v2 (draft): agent-owned terminals', () => {
  it('bash runs in a terminal: terminal_update with command and cwd, output chunks as they arrive, the tool call references it, exitStatus at the end', async () => {
    const { cli, sessionId, cwd } = await open();
    const command = "printf 'first\\n'; sleep 0.3; printf 'second\\n' >&2; exit 3";
    bed.server.push({ toolCalls: [{ id: 'run', name: 'bash', arguments: { command } }] }, { text: 'Ran it.' });
    await prompt(cli, sessionId, 'run it');
    await untilIdle(cli, sessionId);

    const [started, ...rest] = terminalUpdates(cli, sessionId);
    expect(started).toMatchObject({ command, cwd, capabilities: { cancel: {} } });
    const terminalId = started!.terminalId as string;
    expect(outputOf(cli, sessionId, terminalId)).toBe('first\nsecond\n');
    expect(rest).toEqual([{ sessionUpdate: 'terminal_update', terminalId, exitStatus: { exitCode: 3, signal: null }, capabilities: null }]);
    // Announced before its first chunk; exited after the last.
    const kinds = updatesOf(cli, sessionId).filter((u) => u.terminalId === terminalId).map((u) => u.sessionUpdate);
    expect(kinds[0]).toBe('terminal_update');
    expect(kinds.at(-1)).toBe('terminal_update');
    const calls = toolUpdates(cli, sessionId, 'run');
    // Referenced while it runs, before the call's final status.
    expect(calls.findIndex((u) => u.content !== undefined)).toBeLessThan(calls.length - 1);
    expect(calls.find((u) => u.content !== undefined)).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 'run', content: [{ type: 'terminal', terminalId }] });
    expect(calls.at(-1)).toMatchObject({ status: 'failed', content: [{ type: 'terminal', terminalId }] });
  });

  it('terminal/cancel kills the process and confirms with exitStatus; the tool call fails on its own and the turn goes on', async () => {
    const { cli, sessionId } = await open();
    const sleep = uniqueSleep();
    bed.server.push({ toolCalls: [{ id: 'term', name: 'bash', arguments: { command: `echo waiting; ${sleep}` } }] }, { text: 'It was stopped.' });
    await prompt(cli, sessionId, 'wait');
    await waitFor(() => terminalUpdates(cli, sessionId).length > 0, 20_000, 'the terminal');
    const terminalId = terminalUpdates(cli, sessionId)[0]!.terminalId as string;
    await waitFor(() => processesMatching(sleep).length > 0, 10_000, 'the sleep to start');
    await expect(cli.agent.request('terminal/cancel', { sessionId, terminalId: 'term-nope' })).rejects.toMatchObject({ code: -32602 });

    expect(await cli.agent.request('terminal/cancel', { sessionId, terminalId })).toEqual({});
    await untilIdle(cli, sessionId);
    expect(statesOf(cli, sessionId).at(-1)).toBe('idle:end_turn');
    expect(terminalUpdates(cli, sessionId, terminalId).at(-1)).toMatchObject({ exitStatus: { exitCode: null, signal: 'SIGTERM' }, capabilities: null });
    expect(processesMatching(sleep)).toEqual([]);
    expect(outputOf(cli, sessionId, terminalId)).toBe('waiting\n');
    expect(toolUpdates(cli, sessionId, 'term').at(-1)).toMatchObject({ status: 'failed' });
    await expect(cli.agent.request('terminal/cancel', { sessionId, terminalId })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('ACP v2 (draft): background commands', () => {
  it('a background command outlives its tool call and turn, is listed in snapshots after its announce, and its exit comes before the snapshot that drops it', async () => {
    const { cli, sessionId, cwd } = await open();
    // It ends when the test says so (a file appears), not after some time.
    bed.server.push(
      { toolCalls: [{ id: 'bg', name: 'bash', arguments: { command: 'echo started; while [ ! -e go ]; do sleep 0.05; done; echo finished', background: true } }] },
      { text: 'It runs in the background.' },
    );
    await prompt(cli, sessionId, 'start it in the background');
    await untilIdle(cli, sessionId);
    const announce = terminalUpdates(cli, sessionId)[0]!;
    const terminalId = announce.terminalId as string;
    expect(terminalId).toMatch(/^bg-/);
    // The tool call is over while the command still runs; the model was told its id.
    expect(toolUpdates(cli, sessionId, 'bg').at(-1)).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(toolResultSent('bg'))).toContain(`Started in the background as ${terminalId}`);
    const updates = updatesOf(cli, sessionId);
    const firstListing = updates.findIndex((u) => u.sessionUpdate === 'state_update' && JSON.stringify(u.background).includes(terminalId));
    expect(firstListing).toBeGreaterThan(updates.indexOf(announce));
    expect(updates.filter((u) => u.sessionUpdate === 'state_update').at(-1)).toMatchObject({ state: 'idle', stopReason: 'end_turn', background: [{ type: 'terminal', terminalId }] });

    // It ends on its own after the turn: exitStatus first, then a snapshot without it.
    writeFileSync(join(cwd, 'go'), '');
    await waitFor(() => terminalUpdates(cli, sessionId, terminalId).some((u) => u.exitStatus), 20_000, 'the background exit');
    await waitFor(() => updatesOf(cli, sessionId).at(-1)?.sessionUpdate === 'state_update', 10_000, 'the snapshot after the exit');
    const after = updatesOf(cli, sessionId);
    const exitAt = after.findIndex((u) => u.sessionUpdate === 'terminal_update' && u.terminalId === terminalId && u.exitStatus);
    expect(after[exitAt]).toMatchObject({ exitStatus: { exitCode: 0 } });
    expect(after.slice(exitAt + 1).filter((u) => u.sessionUpdate === 'state_update')).toEqual([{ sessionUpdate: 'state_update', state: 'idle', background: [] }]);
    expect(outputOf(cli, sessionId, terminalId)).toBe('started\nfinished\n');
    // Every state update of the session carries the snapshot.
    expect(after.filter((u) => u.sessionUpdate === 'state_update').every((u) => Array.isArray(u.background))).toBe(true);
  });

  it('the model reads new output with bash_output and stops one with bash_kill; resume re-announces the rest; session/close kills them', async () => {
    const { cli, sessionId, cwd } = await open();
    const first = uniqueSleep();
    const second = uniqueSleep();
    bed.server.push(
      { toolCalls: [{ id: 'a', name: 'bash', arguments: { command: `echo alpha; ${first}`, background: true } }] },
      { toolCalls: [{ id: 'b', name: 'bash', arguments: { command: `echo beta; ${second}`, background: true } }] },
      { text: 'Both run.' },
    );
    await prompt(cli, sessionId, 'start two');
    await untilIdle(cli, sessionId);
    const [idA, idB] = terminalUpdates(cli, sessionId).filter((u) => u.command).map((u) => u.terminalId as string);
    // The call answers once the command is spawned; the sandbox's setup may still run before the sleep does.
    await waitFor(() => processesMatching(first).length > 0 && processesMatching(second).length > 0, 10_000, 'both sleeps to start');
    expect(processesMatching(first)).toHaveLength(1);
    expect(processesMatching(second)).toHaveLength(1);
    expect(statesOf(cli, sessionId).length).toBeGreaterThan(0);
    const lastState = () => updatesOf(cli, sessionId).filter((u) => u.sessionUpdate === 'state_update').at(-1);
    expect(lastState()?.background).toEqual([{ type: 'terminal', terminalId: idA }, { type: 'terminal', terminalId: idB }]);

    bed.server.push(
      { toolCalls: [{ id: 'read', name: 'bash_output', arguments: { id: idA } }] },
      { toolCalls: [{ id: 'kill', name: 'bash_kill', arguments: { id: idA } }] },
      { text: 'Stopped the first.' },
    );
    await prompt(cli, sessionId, 'check and stop the first');
    await untilIdle(cli, sessionId, 2);
    expect(JSON.stringify(toolResultSent('read'))).toContain('Status: running');
    expect(JSON.stringify(toolResultSent('kill'))).toContain('Status: ended by SIGTERM');
    expect(processesMatching(first)).toEqual([]);
    expect(terminalUpdates(cli, sessionId, idA).at(-1)).toMatchObject({ exitStatus: { signal: 'SIGTERM' } });
    expect(lastState()?.background).toEqual([{ type: 'terminal', terminalId: idB }]);

    // Resume: the running command is announced again before the snapshot that lists it.
    const beforeResume = updatesOf(cli, sessionId).length;
    await cli.agent.request('session/resume', { sessionId, cwd });
    await waitFor(() => updatesOf(cli, sessionId).slice(beforeResume).some((u) => u.sessionUpdate === 'state_update'), 10_000, 'the resume snapshot');
    expect(updatesOf(cli, sessionId).slice(beforeResume)).toEqual([
      { sessionUpdate: 'terminal_update', terminalId: idB, command: `echo beta; ${second}`, cwd, capabilities: { cancel: {} } },
      { sessionUpdate: 'state_update', state: 'idle', background: [{ type: 'terminal', terminalId: idB }] },
    ]);

    await cli.agent.request('session/close', { sessionId });
    expect(processesMatching(second)).toEqual([]);
  });

  it('the agent exiting stops its background commands', async () => {
    const { cli, sessionId } = await open();
    const sleep = uniqueSleep();
    bed.server.push({ toolCalls: [{ id: 'bg', name: 'bash', arguments: { command: sleep, background: true } }] }, { text: 'Started.' });
    await prompt(cli, sessionId, 'start it');
    await untilIdle(cli, sessionId);
    // Running before the agent exits (the sandbox's setup may outlast the turn), or the check below proves nothing.
    await waitFor(() => processesMatching(sleep).length > 0, 10_000, 'the sleep to start');
    expect(processesMatching(sleep)).toHaveLength(1);
    await shared.close();
    await waitFor(() => processesMatching(sleep).length === 0, 10_000, 'the background sleep to be gone');
  });
});

describe('ACP v2 (draft): compaction', () => {
  it('a compaction of the history is reported as compaction_update (no client capability needed in the draft)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-v2-compact-'));
    mkdirSync(join(cwd, '.plaited'));
    writeFileSync(join(cwd, '.plaited', 'config.json'), JSON.stringify({ agent: { contextWindow: 500, compactAt: 0.8, compactKeepTurns: 1 } }));
    const routed = await startScriptedOpenAIServer((request) => {
      const system = String(request.messages.find((message) => message.role === 'system')?.content ?? '');
      if (system.startsWith('You compact a conversation')) return { text: 'SUMMARY: pears and plums.' };
      return { text: `reply ${request.messages.length}` };
    });
    try {
      const cli = startAcpV2Cli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', routed.url] });
      bed.track(cli);
      await initializeV2(cli);
      const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
      const filler = (word: string) => `${word} `.repeat(150);
      for (const [index, text] of [`pears ${filler('pears')}`, `plums ${filler('plums')}`, 'figs'].entries()) {
        await prompt(cli, sessionId, text);
        await untilIdle(cli, sessionId, index + 1);
      }
      const compactions = updatesOf(cli, sessionId).filter((u) => u.sessionUpdate === 'compaction_update');
      expect(compactions.map((u) => u.status)).toContain('completed');
      expect(JSON.stringify(compactions.find((u) => u.status === 'completed')!.summary)).toContain('pears and plums');
    } finally {
      await routed.close();
    }
  });
});
