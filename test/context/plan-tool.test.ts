import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentOutput } from '../../src/contracts/agent-output.js';
import { createPlanExtension } from '../../src/context/plan-extension.js';
import { createPlanTool } from '../../src/context/plan-tool.js';
import { SessionPlans } from '../../src/context/session-plans.js';
import { tempDir, textOf, toolContext, turnContext } from './context-test-kit.js';

function planEvents(events: AgentOutput[]) {
  return events.filter((event): event is Extract<AgentOutput, { type: 'plan' }> => event.type === 'plan');
}

describe('plan tool', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });

  async function project() {
    const temp = await tempDir('plans');
    cleanups.push(temp.cleanup);
    return temp.dir;
  }

  it('emits a plan event with ACP entries on every change', async () => {
    const cwd = await project();
    const tool = createPlanTool(new SessionPlans());
    const context = toolContext({ cwd, sessionId: 's1' });
    const add = tool.validate({
      items: [
        { content: 'Read the failing test', status: 'in_progress', priority: 'high' },
        { content: 'Fix the parser' },
        { id: 'verify', content: 'Run the suite', dependsOn: ['2'] },
      ],
    });
    if (!add.ok) throw new Error(add.error);
    const first = await tool.execute(add.value, context);
    expect(first.isError).toBeFalsy();
    expect(textOf(first)).toContain('- [pending] verify (task): Run the suite [medium] ← 2');
    const update = tool.validate({ items: [{ id: '1', status: 'completed' }, { id: '2', status: 'in_progress' }] });
    if (!update.ok) throw new Error(update.error);
    await tool.execute(update.value, context);
    const events = planEvents(context.events);
    expect(events).toHaveLength(2);
    expect(events[0]).toEqual({
      type: 'plan',
      sessionId: 's1',
      entries: [
        { content: 'Read the failing test', priority: 'high', status: 'in_progress' },
        { content: 'Fix the parser', priority: 'medium', status: 'pending' },
        { content: 'Run the suite', priority: 'medium', status: 'pending' },
      ],
    });
    expect(events[1].entries.map((entry) => entry.status)).toEqual(['completed', 'in_progress', 'pending']);
  });

  it('refuses a change that would make a cycle, emits nothing and keeps the plan', async () => {
    const cwd = await project();
    const tool = createPlanTool(new SessionPlans());
    const context = toolContext({ cwd });
    const add = tool.validate({ items: [{ id: 'a', content: 'A' }, { id: 'b', content: 'B', dependsOn: ['a'] }] });
    if (!add.ok) throw new Error(add.error);
    await tool.execute(add.value, context);
    const cycle = tool.validate({ items: [{ id: 'a', dependsOn: ['b'] }] });
    if (!cycle.ok) throw new Error(cycle.error);
    const result = await tool.execute(cycle.value, context);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/cycle/);
    expect(planEvents(context.events)).toHaveLength(1);
    const missing = tool.validate({ items: [{ id: 'zzz', status: 'completed' }] });
    if (!missing.ok) throw new Error(missing.error);
    expect((await tool.execute(missing.value, context)).isError).toBe(true);
  });

  it('keeps the plan in .plaited/plans/<sessionId>.json so a new process continues it', async () => {
    const cwd = await project();
    const firstProcess = createPlanTool(new SessionPlans());
    const add = firstProcess.validate({ items: [{ content: 'Step one' }, { content: 'Step two' }] });
    if (!add.ok) throw new Error(add.error);
    await firstProcess.execute(add.value, toolContext({ cwd, sessionId: 'persisted' }));
    const file = JSON.parse(await readFile(join(cwd, '.plaited/plans/persisted.json'), 'utf8'));
    expect(file.nodes.map((node: { id: string }) => node.id)).toEqual(['1', '2']);

    // A "restarted" agent: fresh objects, same folder.
    const extension = createPlanExtension();
    const prompt = await extension.systemPrompt!(turnContext({ cwd, sessionId: 'persisted' }));
    expect(prompt).toContain('- [pending] 1 (task): Step one [medium]');
    const [tool] = (await extension.tools!(turnContext({ cwd, sessionId: 'persisted' }))) as [typeof firstProcess];
    const context = toolContext({ cwd, sessionId: 'persisted' });
    const next = tool.validate({ items: [{ id: '1', status: 'completed' }, { content: 'Step three' }] });
    if (!next.ok) throw new Error(next.error);
    await tool.execute(next.value, context);
    expect(planEvents(context.events)[0].entries).toEqual([
      { content: 'Step one', priority: 'medium', status: 'completed' },
      { content: 'Step two', priority: 'medium', status: 'pending' },
      { content: 'Step three', priority: 'medium', status: 'pending' },
    ]);
    expect(await extension.systemPrompt!(turnContext({ cwd, sessionId: 'other' }))).toBeUndefined();
  });

  it('sets an unreadable plan file aside (never deletes it) and starts a fresh plan', async () => {
    const cwd = await project();
    const { mkdir, writeFile, readdir } = await import('node:fs/promises');
    await mkdir(join(cwd, '.plaited/plans'), { recursive: true });
    await writeFile(join(cwd, '.plaited/plans/broken.json'), '{ not json');
    const tool = createPlanTool(new SessionPlans());
    const add = tool.validate({ items: [{ content: 'Fresh step' }] });
    if (!add.ok) throw new Error(add.error);
    const result = await tool.execute(add.value, toolContext({ cwd, sessionId: 'broken' }));
    expect(result.isError).toBeFalsy();
    const files = await readdir(join(cwd, '.plaited/plans'));
    expect(files.some((name) => name.startsWith('broken.json.corrupt-'))).toBe(true);
    expect(await readFile(join(cwd, '.plaited/plans', files.find((name) => name.startsWith('broken.json.corrupt-'))!), 'utf8')).toBe('{ not json');
  });

  it('never gives a new item an id the model chose for another item in the same call', async () => {
    const cwd = await project();
    const tool = createPlanTool(new SessionPlans());
    const parsed = tool.validate({ items: [{ content: 'auto' }, { id: '1', content: 'explicit' }] });
    if (!parsed.ok) throw new Error(parsed.error);
    const result = await tool.execute(parsed.value, toolContext({ cwd }));
    expect(textOf(result)).toContain('- [pending] 2 (task): auto [medium]');
    expect(textOf(result)).toContain('- [pending] 1 (task): explicit [medium]');
  });

  it('replace starts the list over; remove drops items', async () => {
    const cwd = await project();
    const tool = createPlanTool(new SessionPlans());
    const context = toolContext({ cwd });
    const run = async (args: unknown) => {
      const parsed = tool.validate(args);
      if (!parsed.ok) throw new Error(parsed.error);
      return tool.execute(parsed.value, context);
    };
    await run({ items: [{ content: 'old 1' }, { content: 'old 2' }] });
    await run({ remove: ['1'] });
    expect(planEvents(context.events)[1].entries.map((entry) => entry.content)).toEqual(['old 2']);
    await run({ replace: true, items: [{ content: 'new' }] });
    expect(planEvents(context.events)[2].entries.map((entry) => entry.content)).toEqual(['new']);
  });
});
