import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.js';
import { configSchema } from '../../src/config/schema.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';
import { collect, makeAgent, tempProject, type PermissionEvent } from './agent-test-kit.js';

describe('plan mode', () => {
  it('refuses a write, then executes after the user picks a mode in the exit_plan_mode request; the mode is persisted', async () => {
    const cwd = tempProject();
    const model = scriptedModel([
      { toolCalls: [{ name: 'write_file', input: { path: 'plan.txt', content: 'too early' } }] },
      { toolCalls: [{ name: 'exit_plan_mode', input: { plan: '1. write plan.txt' } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'plan.txt', content: 'executed' } }] },
      { text: 'Done.' },
    ]);
    const agent = makeAgent(model, { agent: { defaultMode: 'plan' } });
    const { sessionId } = await agent.sessions.create({ cwd });
    const questions: PermissionEvent[] = [];
    const events = await collect(agent, sessionId, 'make plan.txt', (event) => {
      questions.push(event);
      return event.kind === 'switch_mode' ? 'mode:accept-edits' : 'allow-once';
    });
    // Step 1: write tools are not even offered in plan mode.
    const firstTools = (model.calls[0]!.tools ?? []).map((tool) => tool.name);
    expect(firstTools).toContain('exit_plan_mode');
    expect(firstTools).not.toContain('write_file');
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('plan mode');
    // The one question was the mode switch, offering the modes.
    expect(questions).toHaveLength(1);
    expect(questions[0]!.options.map((option) => option.optionId)).toEqual(['mode:default', 'mode:accept-edits', 'stay-in-plan']);
    const exit = events.find((event) => event.type === 'tool-call' && event.toolName === 'exit_plan_mode');
    const exitDone = events.find((event) => event.type === 'tool-call-update' && event.toolCallId === (exit as { toolCallId: string }).toolCallId && event.status === 'completed');
    expect(JSON.stringify(exitDone)).toContain('accept-edits');
    // Step 3 ran in accept-edits: no question, the file is written.
    expect(readFileSync(join(cwd, 'plan.txt'), 'utf8')).toBe('executed');
    expect((await agent.sessions.get(sessionId))?.mode).toBe('accept-edits');
    const reopened = createAgent({ config: configSchema.parse({}), model: scriptedModel([]) });
    try {
      expect((await reopened.sessions.get(sessionId, cwd))?.mode).toBe('accept-edits');
    } finally {
      await reopened.stop();
    }
  });

  it('"keep planning" leaves the session in plan mode and the model is told', async () => {
    const cwd = tempProject();
    const model = scriptedModel([{ toolCalls: [{ name: 'exit_plan_mode', input: { plan: 'do it' } }] }, { text: 'Will refine.' }]);
    const agent = makeAgent(model, { agent: { defaultMode: 'plan' } });
    const { sessionId } = await agent.sessions.create({ cwd });
    await collect(agent, sessionId, 'plan', () => 'stay-in-plan');
    expect((await agent.sessions.get(sessionId))?.mode).toBe('plan');
    expect(JSON.stringify(model.calls[1]!.prompt)).toContain('still in plan mode');
    expect(existsSync(join(cwd, 'plan.txt'))).toBe(false);
  });

  it('does not offer exit_plan_mode outside plan mode', async () => {
    const agent = makeAgent(scriptedModel([]));
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    expect((await agent.tools(sessionId)).map((tool) => tool.name)).not.toContain('exit_plan_mode');
    await agent.sessions.setMode(sessionId, 'plan');
    const names = (await agent.tools(sessionId)).map((tool) => tool.name);
    expect(names).toContain('exit_plan_mode');
    expect(names).not.toContain('bash');
  });
});
