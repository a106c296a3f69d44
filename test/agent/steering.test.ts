import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { textResult } from '../../src/tools/tool-result.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, deferred, makeAgent, tempProject, textOf, waitFor } from './agent-test-kit.js';

/** A read tool that runs until the test releases it. */
function gateTool() {
  const started = deferred();
  const release = deferred();
  const tool = defineTool({
    name: 'wait_here',
    description: 'waits for the test',
    parameters: z.object({}),
    risk: 'read',
    async execute() {
      started.resolve();
      await release.promise;
      return textResult('tool finished');
    },
  });
  return { tool, started, release };
}

describe('steering', () => {
  it('a message sent during a tool call joins the turn before the next model step, and its own stream ends once absorbed', async () => {
    const gate = gateTool();
    const model = scriptedModel([{ toolCalls: [{ name: 'wait_here', input: {} }] }, { text: 'Steered answer.' }]);
    const agent = makeAgent(model, {}, { tools: [gate.tool] });
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const first = collect(agent, sessionId, 'start working');
    await gate.started.promise;
    let steerEnded = false;
    const queued = deferred();
    const onEvent = (event: AgentOutput) => event.type === 'user-message' && queued.resolve();
    const steer = collect(agent, sessionId, 'focus on the tests instead', undefined, {}, onEvent).then((events) => {
      steerEnded = true;
      return events;
    });
    // The steer stream announces its message once it is queued on the running turn.
    await queued.promise;
    // Not absorbed yet: the tool is still running, no model step has started.
    expect(steerEnded).toBe(false);
    expect(model.calls).toHaveLength(1);
    gate.release.resolve();
    const [firstEvents, steerEvents] = await Promise.all([first, steer]);
    expect(steerEvents.map((event) => event.type)).toEqual(['user-message', 'turn-end']);
    expect(steerEvents.at(-1)).toMatchObject({ stopReason: 'end_turn' });
    expect(textOf(firstEvents)).toBe('Steered answer.');
    expect(model.calls).toHaveLength(2);
    const second = JSON.stringify(model.calls[1]!.prompt);
    expect(second.indexOf('tool finished')).toBeGreaterThan(-1);
    expect(second.indexOf('focus on the tests instead')).toBeGreaterThan(second.indexOf('tool finished'));
  });

  it('denies calls still waiting for approval with "superseded by new instruction"', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'write_file', input: { path: 'a.txt', content: 'a' } }, { name: 'write_file', input: { path: 'b.txt', content: 'b' } }] },
      { text: 'OK, changing course.' },
    ]);
    const agent = makeAgent(model);
    const cwd = tempProject();
    const { sessionId } = await agent.sessions.create({ cwd });
    const asked: string[] = [];
    const signals: Array<AbortSignal | undefined> = [];
    let steer: Promise<AgentOutput[]> | undefined;
    const events = await collect(
      agent,
      sessionId,
      'write two files',
      (event) => {
        asked.push(event.toolCallId);
        signals.push(event.signal);
        // Leave the question open and send a new instruction instead.
        steer ??= collect(agent, sessionId, 'stop, write nothing');
        return undefined;
      },
    );
    const steerEvents = await steer!;
    expect(asked).toHaveLength(1);
    // The open question is withdrawn, so an adapter can tell its client.
    expect(signals[0]?.aborted).toBe(true);
    const failed = events.filter((event) => event.type === 'tool-call-update' && event.status === 'failed');
    expect(failed).toHaveLength(2);
    const prompt = JSON.stringify(model.calls[1]!.prompt);
    expect(prompt.match(/superseded by new instruction/g)).toHaveLength(2);
    expect(prompt).toContain('stop, write nothing');
    expect(steerEvents.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
  });

  it('a message sent while the last, text-only step streams is answered in the same turn, one step more', async () => {
    const model = scriptedModel([{ text: 'first answer', chunkDelayMs: 15 }, { text: 'and the second' }]);
    const agent = makeAgent(model);
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const first: AgentOutput[] = [];
    let steer: Promise<AgentOutput[]> | undefined;
    // The turn pauses with its consumer: the step cannot end before the message is queued on it.
    for await (const event of agent.process({ sessionId, prompt: [{ type: 'text', text: 'one' }] })) {
      first.push(event);
      if (event.type !== 'text-delta' || steer) continue;
      const queued = deferred();
      steer = collect(agent, sessionId, 'two', undefined, {}, (sent) => sent.type === 'user-message' && queued.resolve());
      await queued.promise;
    }
    const steerEvents = await steer!;
    expect(steerEvents.map((event) => event.type)).toEqual(['user-message', 'turn-end']);
    // The second step's text begins a paragraph of its own (turn-text.ts).
    expect(textOf(first)).toBe('first answer\n\nand the second');
    expect(first.filter((event) => event.type === 'turn-end')).toEqual([expect.objectContaining({ stopReason: 'end_turn' })]);
    expect(model.calls).toHaveLength(2);
    const second = JSON.stringify(model.calls[1]!.prompt);
    expect(second.indexOf('two')).toBeGreaterThan(second.indexOf('first answer'));
    // Stored in the order the model saw them: the first answer, the message, the answer to it.
    const history = await agent.sessions.history(sessionId);
    const kinds = history.flatMap((event) => (event.type === 'user-message' ? ['user'] : event.type === 'text-delta' ? ['text'] : []));
    expect(kinds.join(' ').replace(/(text ?)+/g, 'text ').trim()).toBe('user text user text');
  });

  it('a steering message that arrives after the last step runs as a turn of its own', async () => {
    const model = scriptedModel([{ text: 'first answer', chunkDelayMs: 15 }, { text: 'second answer' }]);
    const agent = makeAgent(model);
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    let steer: Promise<AgentOutput[]> | undefined;
    // `usage` comes once the turn decided to end: no more model step takes the message.
    const first = await collect(agent, sessionId, 'one', undefined, {}, (event) => {
      if (event.type === 'usage') steer ??= collect(agent, sessionId, 'two');
    });
    const second = await steer!;
    expect(textOf(first)).toBe('first answer');
    expect(textOf(second)).toBe('second answer');
    expect(second.filter((event) => event.type === 'user-message')).toHaveLength(1);
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('first answer');
  });

  it('queues per message: sendMode "queue" overrides the steer default', async () => {
    const gate = gateTool();
    const model = scriptedModel([{ toolCalls: [{ name: 'wait_here', input: {} }] }, { text: 'one done' }, { text: 'two done' }]);
    const agent = makeAgent(model, { agent: { sendMode: 'steer' } }, { tools: [gate.tool] });
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const first = collect(agent, sessionId, 'one');
    await gate.started.promise;
    const queued = collect(agent, sessionId, 'two', undefined, { sendMode: 'queue' });
    const third = collect(agent, sessionId, 'three', undefined, { sendMode: 'queue' });
    gate.release.resolve();
    const [a, b, c] = await Promise.all([first, queued, third]);
    expect(textOf(a)).toBe('one done');
    expect(textOf(b)).toBe('two done');
    expect(c.at(-1)).toMatchObject({ type: 'turn-end' });
    expect(JSON.stringify(model.calls[1]!.prompt)).not.toContain('two');
    expect(JSON.stringify(model.calls[2]!.prompt)).toContain('one done');
    await waitFor(() => model.calls.length === 4);
  });
});

describe('steering history', () => {
  it('stores the steering message where the model saw it, and a sender that gives up withdraws it', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'glob', input: { pattern: '*' } }], chunkDelayMs: 20 },
      { text: 'after steering' },
    ]);
    const agent = makeAgent(model);
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    let steer: Promise<AgentOutput[]> | undefined;
    let withdrawn: Promise<AgentOutput[]> | undefined;
    const controller = new AbortController();
    await collect(agent, sessionId, 'look around', undefined, {}, (event) => {
      if (event.type === 'tool-call' && !steer) {
        steer = collect(agent, sessionId, 'and check README');
        withdrawn = collect(agent, sessionId, 'never mind this one', undefined, { signal: controller.signal });
        controller.abort();
      }
    });
    expect((await withdrawn!).at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'cancelled' });
    expect((await steer!).at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
    const prompt = JSON.stringify(model.calls[1]!.prompt);
    expect(prompt).toContain('and check README');
    expect(prompt).not.toContain('never mind this one');
    const history = await agent.sessions.history(sessionId);
    const kinds = history.map((event) => (event.type === 'user-message' ? `user:${JSON.stringify(event.content).includes('README') ? 'steer' : 'first'}` : event.type));
    // first prompt, its tool call, then the steering message, then the answer to both.
    expect(kinds.indexOf('user:steer')).toBeGreaterThan(kinds.lastIndexOf('tool-call-update'));
    expect(kinds.indexOf('user:steer')).toBeLessThan(kinds.indexOf('text-delta'));
    expect(kinds.filter((kind) => kind.startsWith('user:'))).toEqual(['user:first', 'user:steer']);
  });
});
