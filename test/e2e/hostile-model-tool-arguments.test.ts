import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { agentText, initialize, type AcpCli } from '../helpers/acp-cli.js';

/** Turns and restarts of the real CLI: generous for a loaded CI machine (a bound, not a measure). */
const RESTART_TIMEOUT_MS = 90_000;
const bed = acpTestBed({ prefix: 'plaited-hostile-args-' });

async function newSession(cli: AcpCli, cwd: string): Promise<string> {
  await initialize(cli);
  return (await cli.agent.request('session/new', { cwd, mcpServers: [] })).sessionId;
}

/** The text of the tool result the model was sent back for `toolCallId`. */
function toolResultSent(toolCallId: string): string {
  for (const request of bed.server.requests) {
    const found = request.messages.find((message) => message.role === 'tool' && message.tool_call_id === toolCallId);
    if (found) return JSON.stringify(found.content);
  }
  throw new Error(`no tool result for ${toolCallId} was sent to the model`);
}

describe('tool arguments a model sends are bounded', () => {
  it('a write_file argument nested 5,000 levels gets an error result naming the limit, and the next prompt is answered', async () => {
    const cwd = bed.project();
    const cli = bed.start(cwd);
    const sessionId = await newSession(cli, cwd);
    const deep = `{"path":"a.txt","content":"x","extra":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    bed.server.push({ toolCalls: [{ id: 'deep_1', name: 'write_file', arguments: deep }] }, { text: 'I will not do that again.' });
    const first = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write it' }] });
    expect(first.stopReason).toBe('end_turn');
    const result = toolResultSent('deep_1');
    expect(result).toContain('nested deeper than');
    expect(result).toContain('128');

    const from = cli.updates.length;
    bed.server.push({ text: 'still here' });
    const second = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'are you there?' }] });
    expect(second.stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId, from)).toBe('still here');
  }, RESTART_TIMEOUT_MS);

  it('tool arguments larger than the cap get an error result naming the cap; the turn goes on', async () => {
    const cwd = bed.project();
    const cli = bed.start(cwd);
    const sessionId = await newSession(cli, cwd);
    const huge = JSON.stringify({ path: 'b.txt', content: 'y'.repeat(5 * 1024 * 1024) });
    bed.server.push({ toolCalls: [{ id: 'huge_1', name: 'write_file', arguments: huge }] }, { text: 'ok, smaller then' });
    const first = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write a lot' }] });
    expect(first.stopReason).toBe('end_turn');
    expect(toolResultSent('huge_1')).toContain('larger than');
    bed.server.push({ text: 'answered' });
    const second = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'next' }] });
    expect(second.stopReason).toBe('end_turn');
  }, RESTART_TIMEOUT_MS);

  it('read_file on a named pipe, five times over, gets an error result each time, and the next file tool call is served', async () => {
    // Opened plainly, each read waited for a writer on one of libuv's four file threads, for good: the fifth froze the agent's file I/O.
    const cwd = bed.project();
    spawnSync('mkfifo', [join(cwd, 'pipe')]);
    const cli = bed.start(cwd);
    const sessionId = await newSession(cli, cwd);
    const reads = Array.from({ length: 5 }, (_, i) => ({ id: `pipe_${i}`, name: 'read_file', arguments: JSON.stringify({ path: 'pipe' }) }));
    bed.server.push({ toolCalls: reads }, { toolCalls: [{ id: 'plain_1', name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'kept' }) }] }, { text: 'done' });
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read the pipe' }] });
    expect(response.stopReason).toBe('end_turn');
    for (const read of reads) expect(toolResultSent(read.id)).toContain('is a named pipe, not a regular file');
    expect(toolResultSent('plain_1')).toContain('Created notes.txt');
  }, RESTART_TIMEOUT_MS);

  it('named pipes a command leaves in git files do not freeze a later command (the read-only layer reads those files first)', async () => {
    // A plain synchronous read of such a pipe, to find what to hold read-only, blocked the agent's only thread for good.
    // The layer reuses what it found for 10 s, so the later command runs in a second agent, which looks afresh.
    const cwd = bed.project();
    const planter = bed.start(cwd);
    const planted = await newSession(planter, cwd);
    const plant = 'git init -q w && rm w/.git/config && mkfifo w/.git/config w/.git/commondir && mkdir sub && mkfifo sub/.git && echo planted';
    bed.server.push({ toolCalls: [{ id: 'plant_1', name: 'bash', arguments: JSON.stringify({ command: plant }) }] }, { text: 'planted' });
    expect((await planter.agent.request('session/prompt', { sessionId: planted, prompt: [{ type: 'text', text: 'plant pipes' }] })).stopReason).toBe('end_turn');
    expect(toolResultSent('plant_1')).toContain('planted');

    const later = bed.start(cwd);
    const sessionId = await newSession(later, cwd);
    bed.server.push({ toolCalls: [{ id: 'next_1', name: 'bash', arguments: JSON.stringify({ command: 'echo the next command ran' }) }] }, { text: 'done' });
    expect((await later.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run it' }] })).stopReason).toBe('end_turn');
    expect(toolResultSent('next_1')).toContain('the next command ran');
  }, RESTART_TIMEOUT_MS);
});

describe('tool-call ids a model server repeats', () => {
  it('two calls of one reply with one id, and the next reply reusing it, are three calls to the client and to the model', async () => {
    const cwd = bed.project();
    const cli = bed.start(cwd);
    const sessionId = await newSession(cli, cwd);
    // A server that numbers every reply's calls from call_0 (or sends no id at all).
    bed.server.push(
      {
        toolCalls: [
          { id: 'call_0', name: 'glob', arguments: { pattern: 'first-*' } },
          { id: 'call_0', name: 'glob', arguments: { pattern: 'second-*' } },
        ],
      },
      { toolCalls: [{ id: 'call_0', name: 'glob', arguments: { pattern: 'third-*' } }] },
      { text: 'Found nothing.' },
    );
    const response = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'look three times' }] });
    expect(response.stopReason).toBe('end_turn');
    const started = cli.updates.flatMap(({ sessionId: id, update }) => (id === sessionId && update.sessionUpdate === 'tool_call' ? [update] : []));
    expect(started.map((call) => (call.rawInput as { pattern: string }).pattern)).toEqual(['first-*', 'second-*', 'third-*']);
    const ids = started.map((call) => call.toolCallId);
    expect(new Set(ids).size).toBe(3);
    expect(ids[0]).toBe('call_0');
    // The last request holds the three calls and a result for each, paired by the ids the client saw.
    const last = bed.server.requests.at(-1)!.messages;
    const calls = last.flatMap((message) => ((message.tool_calls as Array<{ id: string }> | undefined) ?? []).map((call) => call.id));
    const results = last.filter((message) => message.role === 'tool').map((message) => message.tool_call_id);
    expect(calls).toEqual(ids);
    expect(results).toEqual(ids);
  }, RESTART_TIMEOUT_MS);
});
