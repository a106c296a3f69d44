import { TaskState } from '@a2a-js/sdk';
import { DefaultExecutionEventBus, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { A2aTaskTurns } from '../../../src/adapters/a2a/a2a-task-turns.js';
import { TaskPublisher } from '../../../src/adapters/a2a/a2a-task-publisher.js';
import { scriptedModel } from '../../helpers/scripted-mock-model.js';
import { makeAgent, tempProject } from '../../agent/agent-test-kit.js';

/** The last status a task's bus carried: its state and its message's text. */
function lastStatus(events: AgentExecutionEvent[]): { state: TaskState | undefined; text: string } {
  const last = events.filter((event) => event.kind === 'statusUpdate').at(-1);
  const status = last?.kind === 'statusUpdate' ? last.data.status : undefined;
  const text = (status?.message?.parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
  return { state: status?.state, text };
}

describe('A2aTaskTurns', () => {
  it('once its final state is decided a task takes no more messages: add refuses, and the state is named for the reply', async () => {
    const agent = makeAgent(scriptedModel([{ text: 'Done.' }]));
    const { sessionId } = await agent.sessions.create({ cwd: tempProject() });
    const bus = new DefaultExecutionEventBus();
    const events: AgentExecutionEvent[] = [];
    bus.on('event', (event) => events.push(event));
    const controller = new AbortController();
    const turns = new A2aTaskTurns({ publisher: new TaskPublisher(bus, { taskId: 't1', contextId: 'c1' }), signal: controller.signal, inputTimeoutMs: 60_000, onQuestion: () => {} });
    turns.run(agent.process({ sessionId, prompt: [{ type: 'text', text: 'go' }] }, { signal: controller.signal, sendMode: 'queue', turnKey: turns }));
    expect(turns.open).toBe(true);
    await turns.finish();
    expect(lastStatus(events)).toEqual({ state: TaskState.TASK_STATE_COMPLETED, text: 'Done.' });
    expect(turns.open).toBe(false);
    expect(turns.endedAs).toBe('completed');
    const late = agent.process({ sessionId, prompt: [{ type: 'text', text: 'too late' }] }, { sendMode: 'steer', turnKey: turns });
    expect(turns.add(late)).toBe(false);
    // Nothing was published after the final state.
    expect(events.at(-1)?.kind).toBe('statusUpdate');
    expect(lastStatus(events).state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
