import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { Semaphore } from '../../src/agent/task-tool.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { routedModel, type RouteInput } from './routed-mock-model.js';
import { collect, deferred, makeAgent, tempProject, waitFor } from './agent-test-kit.js';

const agentsConfig = {
  reader: { description: 'Reads files and reports', systemPrompt: 'You are the READER sub-agent.', tools: ['read_file'] },
};

/** Parent: three task calls, then an answer; children: routed by their prompt. */
function familyModel(child: (input: RouteInput) => import('../helpers/scripted-mock-model.js').MockStep) {
  let parentSteps = 0;
  return routedModel((input) => {
    if (input.system.includes('READER')) return child(input);
    parentSteps++;
    if (parentSteps === 1) {
      return {
        toolCalls: ['alpha', 'beta', 'gamma'].map((name, i) => ({
          id: `task_${i}`,
          name: 'task',
          input: { agent: 'reader', prompt: `job ${name}`, description: name },
        })),
      };
    }
    return { text: 'All tasks reported.' };
  });
}

describe('sub-agents (task tool)', () => {
  it('runs three children in parallel; results come back in request order, one failing; nested calls carry the parent id', async () => {
    const cwd = tempProject();
    writeFileSync(join(cwd, 'alpha.txt'), 'alpha content');
    let childTools: string[] = [];
    const model = familyModel((input) => {
      childTools = (input.options.tools ?? []).map((tool) => tool.name);
      const job = /job (\w+)/.exec(input.text)?.[1];
      const hasResult = input.text.includes('tool-result');
      if (job === 'beta') return { error: new Error('beta child exploded') };
      if (job === 'alpha' && !hasResult) return { toolCalls: [{ id: 'read_1', name: 'read_file', input: { path: 'alpha.txt' } }] };
      // gamma answers slowly so it would finish last without order handling; alpha finishes after its tool.
      return { text: `report for ${job}`, chunkDelayMs: job === 'gamma' ? 1 : 20 };
    });
    const agent = makeAgent(model, { agents: agentsConfig });
    const { sessionId } = await agent.sessions.create({ cwd });
    const events = await collect(agent, sessionId, 'split the work');
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'end_turn' });
    expect(childTools).toEqual(['read_file']);

    const parentPrompt = model.calls.find((call) => !call.system.includes('READER') && call.text.includes('All tasks') === false && call.text.includes('tool-result'))!;
    const results = JSON.parse(parentPrompt.text) as Array<{ role: string; content: Array<{ type: string; toolCallId?: string; output?: { value?: unknown } }> }>;
    const toolMessage = results.find((message) => message.role === 'tool')!;
    expect(toolMessage.content.map((part) => part.toolCallId)).toEqual(['task_0', 'task_1', 'task_2']);
    const texts = toolMessage.content.map((part) => JSON.stringify(part.output));
    expect(texts[0]).toContain('report for alpha');
    expect(texts[1]).toContain('beta child exploded');
    expect(texts[2]).toContain('report for gamma');

    const updates = events.filter((event): event is Extract<AgentOutput, { type: 'tool-call-update' }> => event.type === 'tool-call-update');
    expect(updates.find((update) => update.toolCallId === 'task_1' && update.status)?.status).toBeDefined();
    expect(updates.filter((update) => update.toolCallId === 'task_1').at(-1)?.status).toBe('failed');
    const nested = events.find((event) => event.type === 'tool-call' && event.parentToolCallId);
    expect(nested).toMatchObject({ sessionId, toolName: 'read_file', parentToolCallId: 'task_0', toolCallId: 'task_0/read_1' });
    expect(updates.some((update) => update.toolCallId === 'task_0/read_1' && update.status === 'completed')).toBe(true);
    // Child sessions are hidden from the session list.
    expect((await agent.sessions.list({ cwd })).map((info) => info.sessionId)).toEqual([sessionId]);
  });

  it('cancelling the parent cancels the running children', async () => {
    const cwd = tempProject();
    const model = familyModel(() => ({ text: 'x'.repeat(400), chunkDelayMs: 50 }));
    const agent = makeAgent(model, { agents: agentsConfig });
    const { sessionId } = await agent.sessions.create({ cwd });
    const controller = new AbortController();
    const run = collect(agent, sessionId, 'split', undefined, { signal: controller.signal });
    await waitFor(() => model.calls.filter((call) => call.system.includes('READER')).length === 3);
    controller.abort();
    const events = await run;
    expect(events.at(-1)).toMatchObject({ type: 'turn-end', stopReason: 'cancelled' });
    const finals = events.filter((event) => event.type === 'tool-call-update' && event.toolCallId.startsWith('task_') && event.status === 'failed');
    expect(finals).toHaveLength(3);
    expect(JSON.stringify(finals)).toContain('cancel');
  });

  it('bounds parallel children by agent.maxParallelSubagents, serving in request order', async () => {
    const limiter = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    // Each job holds its slot until the test releases it.
    const gates = [0, 1, 2, 3, 4].map(() => deferred());
    const jobs = Promise.all(
      [0, 1, 2, 3, 4].map((n) =>
        limiter.run(async () => {
          started.push(n);
          active++;
          peak = Math.max(peak, active);
          await gates[n].promise;
          active--;
        }),
      ),
    );
    await waitFor(() => started.length >= 2, 10_000, 'two jobs to start');
    // Two slots: the other three wait while the first two hold theirs.
    expect(started).toEqual([0, 1]);
    gates[0].resolve();
    await waitFor(() => started.length >= 3, 10_000, 'the third job to take the freed slot');
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates) gate.resolve();
    await jobs;
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);

    const cwd = tempProject();
    let childActive = 0;
    let childPeak = 0;
    const model = familyModel(() => {
      childActive++;
      childPeak = Math.max(childPeak, childActive);
      setTimeout(() => childActive--, 60);
      return { text: 'done', chunkDelayMs: 30 };
    });
    const agent = makeAgent(model, { agents: agentsConfig, agent: { maxParallelSubagents: 1 } });
    const { sessionId } = await agent.sessions.create({ cwd });
    await collect(agent, sessionId, 'go');
    expect(childPeak).toBe(1);
  });

  it('uses the model and system prompt of agents.<name>, and does not offer task to children', async () => {
    const cwd = tempProject();
    const own = scriptedModel([{ text: 'answer from the special model' }]);
    let parentSteps = 0;
    const parent = routedModel(() =>
      ++parentSteps === 1 ? { toolCalls: [{ id: 'task_x', name: 'task', input: { agent: 'special', prompt: 'do the special thing' } }] } : { text: 'ok' },
    );
    const agent = makeAgent(parent, { agents: { special: { description: 'Special', systemPrompt: 'You are SPECIAL.', model: own } } });
    const { sessionId } = await agent.sessions.create({ cwd });
    await collect(agent, sessionId, 'delegate');
    expect(own.calls).toHaveLength(1);
    expect(JSON.stringify(own.calls[0]!.prompt)).toContain('You are SPECIAL.');
    expect((own.calls[0]!.tools ?? []).map((tool) => tool.name)).not.toContain('task');
    expect(parent.calls[1]!.text).toContain('answer from the special model');
  });

  it("asks the parent's client before a child's write, under the nested call id", async () => {
    const cwd = tempProject();
    const child = scriptedModel([{ toolCalls: [{ id: 'w1', name: 'write_file', input: { path: 'child.txt', content: 'from child' } }] }, { text: 'written' }]);
    let parentSteps = 0;
    const parent = routedModel(() =>
      ++parentSteps === 1 ? { toolCalls: [{ id: 'task_w', name: 'task', input: { agent: 'writer', prompt: 'write child.txt' } }] } : { text: 'ok' },
    );
    const agent = makeAgent(parent, { agents: { writer: { description: 'Writes', tools: ['write_file'], model: child } } });
    const { sessionId } = await agent.sessions.create({ cwd });
    const asked: string[] = [];
    await collect(agent, sessionId, 'delegate a write', (event) => {
      asked.push(`${event.sessionId}:${event.toolCallId}`);
      return 'allow-once';
    });
    expect(asked).toEqual([`${sessionId}:task_w/w1`]);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(cwd, 'child.txt'), 'utf8')).toBe('from child');
  });
});
