import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../../src/agent/create-agent.js';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { configSchema, type PlaitedConfigInput } from '../../src/config/schema.js';
import { defineTool } from '../../src/tools/define-tool.js';
import { textResult } from '../../src/tools/tool-result.js';
import { scriptedModel, type MockStep } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject } from './agent-test-kit.js';

function setup(steps: MockStep[], config: PlaitedConfigInput = {}) {
  const model = scriptedModel(steps);
  return { agent: makeAgent(model, config), model, cwd: tempProject() };
}

const types = (events: AgentOutput[]) => events.map((event) => event.type);

describe('agent loop', () => {
  it('streams a plain answer and ends the turn', async () => {
    const { agent, cwd } = setup([{ text: 'Hello there, friend.' }]);
    const session = await agent.sessions.create({ cwd });
    const events = await collect(agent, session.sessionId, 'hi');
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    expect(text).toBe('Hello there, friend.');
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
    expect(types(events)[0]).toBe('user-message');
  });

  it('runs a read tool without asking and feeds the result back', async () => {
    const { agent, model, cwd } = setup([
      { toolCalls: [{ name: 'read_file', input: { path: 'a.txt' } }] },
      { text: 'The file says hello.' },
    ]);
    writeFileSync(join(cwd, 'a.txt'), 'hello\n');
    const session = await agent.sessions.create({ cwd });
    const events = await collect(agent, session.sessionId, 'read a.txt');
    expect(types(events)).not.toContain('permission-request');
    const done = events.find((event) => event.type === 'tool-call-update' && event.status === 'completed');
    expect(done).toBeDefined();
    const second = JSON.stringify(model.calls[1]!.prompt);
    expect(second).toContain('hello');
  });

  it('asks before a write; a rejection is reported to the model and nothing is written', async () => {
    const { agent, model, cwd } = setup([
      { toolCalls: [{ name: 'write_file', input: { path: 'b.txt', content: 'x' } }] },
      { text: 'OK, I will not.' },
    ]);
    const session = await agent.sessions.create({ cwd });
    const events = await collect(agent, session.sessionId, 'write b', () => 'reject-once');
    expect(types(events)).toContain('permission-request');
    expect(events.find((event) => event.type === 'tool-call-update' && event.status === 'failed')).toBeDefined();
    expect(() => readFileSync(join(cwd, 'b.txt'))).toThrow();
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('rejected');
  });

  it('a call the model wrote with control characters is titled and labelled with them shown, for every face to print as is', async () => {
    const { agent, cwd } = setup([
      { toolCalls: [{ name: 'bash', input: { command: 'echo planted\r\u001b[2K echo shown' } }] },
      { toolCalls: [{ name: 'bash', input: { command: 'echo a\u001bb' } }] },
      { toolCalls: [{ name: 'no_such_tool\u001b]0;t\u0007', input: {} }] },
      { text: 'done' },
    ]);
    const session = await agent.sessions.create({ cwd });
    const events = await collect(agent, session.sessionId, 'go', () => 'reject-once');
    const titles = events.flatMap((event) => (event.type === 'tool-call' ? [event.title] : []));
    expect(titles).toEqual(['Run: echo planted\\u000d\\u001b[2K echo shown', 'Run: echo a\\u001bb', 'no_such_tool\\u001b]0;t\\u0007']);
    const asked = events.flatMap((event) => (event.type === 'permission-request' ? [event] : []));
    expect(asked.map((question) => question.title)).toEqual(titles.slice(0, 2));
    expect(asked[1]!.options.map((option) => option.name)).toContain('Always allow `echo a\\u001bb` in this project');
    expect(asked.flatMap((question) => [question.title, ...question.options.map((option) => option.name)]).join('')).not.toMatch(/[\u0000-\u001f]/);
  });

  it('remembers allow-always for the session', async () => {
    const { agent, cwd } = setup([
      { toolCalls: [{ name: 'write_file', input: { path: 'c.txt', content: '1' } }] },
      { text: 'done' },
      { toolCalls: [{ name: 'write_file', input: { path: 'c.txt', content: '2' } }] },
      { text: 'done again' },
    ]);
    const session = await agent.sessions.create({ cwd });
    const first = await collect(agent, session.sessionId, 'write', () => 'allow-always');
    expect(types(first).filter((type) => type === 'permission-request')).toHaveLength(1);
    const second = await collect(agent, session.sessionId, 'write again');
    expect(types(second)).not.toContain('permission-request');
    expect(readFileSync(join(cwd, 'c.txt'), 'utf8')).toBe('2');
  });

  it('runs two tool calls of one step in parallel and returns both results', async () => {
    let concurrent = 0;
    let maxConcurrent = 0;
    // Each call waits until both are running: run one after the other, the first would never finish.
    let bothRunning!: () => void;
    const overlap = new Promise<void>((resolve) => (bothRunning = resolve));
    const slow = defineTool({
      name: 'slow',
      description: 'waits',
      parameters: z.object({ id: z.string() }),
      risk: 'read',
      async execute(args) {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        if (concurrent === 2) bothRunning();
        await overlap;
        concurrent--;
        return textResult(`done ${args.id}`);
      },
    });
    const cwd = tempProject();
    const model = scriptedModel([
      { toolCalls: [{ name: 'slow', input: { id: 'a' } }, { name: 'slow', input: { id: 'b' } }] },
      { text: 'both done' },
    ]);
    const agent = makeAgent(model, {}, { tools: [slow] });
    const session = await agent.sessions.create({ cwd });
    await collect(agent, session.sessionId, 'go');
    expect(maxConcurrent).toBe(2);
    const prompt = JSON.stringify(model.calls[1]!.prompt);
    expect(prompt).toContain('done a');
    expect(prompt).toContain('done b');
  });

  it('reports unknown tools and invalid arguments to the model as tool errors', async () => {
    const { agent, model, cwd } = setup([
      { toolCalls: [{ name: 'no_such_tool', input: {} }, { name: 'read_file', input: { nope: 1 } }] },
      { text: 'sorry' },
    ]);
    const session = await agent.sessions.create({ cwd });
    const events = await collect(agent, session.sessionId, 'go');
    const failed = events.filter((event) => event.type === 'tool-call-update' && event.status === 'failed');
    expect(failed).toHaveLength(2);
    const prompt = JSON.stringify(model.calls[1]!.prompt);
    expect(prompt).toContain('Unknown tool');
    expect(prompt).toContain('Invalid arguments');
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
  });

  it('stops at maxSteps with max_turn_requests', async () => {
    const loop = Array.from({ length: 5 }, () => ({ toolCalls: [{ name: 'glob', input: { pattern: '*' } }] }));
    const { agent, cwd } = setup(loop, { agent: { maxSteps: 3 } });
    const session = await agent.sessions.create({ cwd });
    const events = await collect(agent, session.sessionId, 'loop');
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'max_turn_requests' });
    expect(events.filter((event) => event.type === 'tool-call')).toHaveLength(3);
  });

  it('ends with an error event when the model fails, and the session keeps working', async () => {
    const { agent, cwd } = setup([{ error: new Error('connection refused') }, { text: 'back' }]);
    const session = await agent.sessions.create({ cwd });
    const failed = await collect(agent, session.sessionId, 'hi');
    expect(failed.at(-1)).toMatchObject({ type: 'error' });
    expect(JSON.stringify(failed.at(-1))).toContain('connection refused');
    const ok = await collect(agent, session.sessionId, 'again');
    expect(ok.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
  });

  it('cancels a running tool through the signal and ends cancelled', async () => {
    const { agent, cwd } = setup([{ toolCalls: [{ name: 'bash', input: { command: 'sleep 30' } }] }, { text: 'never' }]);
    const session = await agent.sessions.create({ cwd });
    const controller = new AbortController();
    const events: AgentOutput[] = [];
    for await (const event of agent.process({ sessionId: session.sessionId, prompt: [{ type: 'text', text: 'sleep' }] }, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'permission-request') event.respond({ outcome: 'selected', optionId: 'allow-once' });
      if (event.type === 'tool-call-update' && event.status === 'in_progress') controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'cancelled' });
  });

  it('queues a second prompt until the first turn ends', async () => {
    const { agent, cwd } = setup([{ text: 'first', chunkDelayMs: 20 }, { text: 'second' }], { agent: { sendMode: 'queue' } });
    const session = await agent.sessions.create({ cwd });
    const order: string[] = [];
    await Promise.all([
      collect(agent, session.sessionId, 'one').then(() => order.push('one')),
      collect(agent, session.sessionId, 'two').then(() => order.push('two')),
    ]);
    expect(order).toEqual(['one', 'two']);
  });

  it('persists history: a new agent over the same store replays the events', async () => {
    const cwd = tempProject();
    const first = createAgent({ config: configSchema.parse({}), model: scriptedModel([{ text: 'remember me' }]) });
    const session = await first.sessions.create({ cwd });
    await collect(first, session.sessionId, 'hello');
    await first.stop();
    const second = makeAgent(scriptedModel([{ text: 'again' }]));
    const history = await second.sessions.history(session.sessionId, cwd);
    expect(types(history)).toEqual(['user-message', 'text-delta', 'turn-end']);
    expect(history[1]).toMatchObject({ text: 'remember me' });
    const listed = await second.sessions.list({ cwd });
    expect(listed.map((info) => info.sessionId)).toContain(session.sessionId);
  });
});
