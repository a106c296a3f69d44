import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { DefaultExecutionEventBus, RequestContext, ResultManager, ServerCallContext, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import { afterEach, describe, expect, it } from 'vitest';
import { A2aAgentExecutor } from '../../../src/adapters/a2a/a2a-agent-executor.js';
import { agentMessage, textPart } from '../../../src/adapters/a2a/a2a-messages.js';
import { A2aPrincipal } from '../../../src/adapters/a2a/a2a-principal.js';
import { StoredTaskStore } from '../../../src/adapters/a2a/stored-task-store.js';
import { createAgent } from '../../../src/agent/create-agent.js';
import { openSessionStores } from '../../../src/storage/open-session-stores.js';
import { SqliteA2aTaskRecords } from '../../../src/storage/sqlite/sqlite-a2a-task-records.js';
import { scriptedModel } from '../../helpers/scripted-mock-model.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const ids = { taskId: 't1', contextId: 'c1' };

describe('A2A executor: a message whose task ended after the SDK read it as live', () => {
  it('is answered task_ended and leaves the completed task as stored, instead of publishing "no longer running" (failed)', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'plaited-a2a-ended-')), 'state.db');
    const stores = await openSessionStores({ path: state });
    const agent = createAgent({ model: scriptedModel([]), tools: [], stores });
    const records = new SqliteA2aTaskRecords(state);
    stops.push(async () => {
      await agent.stop();
      await records.close();
      await stores.closeAll();
    });
    const taskStore = new StoredTaskStore(records);
    const executor = new A2aAgentExecutor(agent, records, taskStore, { cwd: mkdtempSync(join(tmpdir(), 'plaited-a2a-cwd-')), inputTimeoutMs: 1_000 });
    const context = new ServerCallContext({ user: new A2aPrincipal('alice') });
    const working: Task = { id: 't1', contextId: 'c1', status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [], metadata: undefined };
    // The SDK read the task as working (its terminal check passed); the turn then ended and left the running map.
    const stale = structuredClone(working);
    await taskStore.save({ ...working, status: { state: TaskState.TASK_STATE_COMPLETED, message: agentMessage(ids, [textPart('4')]), timestamp: new Date().toISOString() } }, context);
    const completed = await taskStore.load('t1', context);

    const message: Message = { ...agentMessage(ids, [textPart('And 3+3?')]), role: Role.ROLE_USER };
    const bus = new DefaultExecutionEventBus();
    const events: AgentExecutionEvent[] = [];
    const manager = new ResultManager(taskStore, context);
    let chain = Promise.resolve();
    bus.on('event', (event: AgentExecutionEvent) => {
      events.push(event);
      chain = chain.then(() => manager.processEvent(event));
    });
    await executor.execute(new RequestContext({ message, configuration: undefined, metadata: {}, tenant: '' }, 't1', 'c1', context, stale), bus);
    await chain;

    expect(events.map((event) => event.kind)).toEqual(['message']);
    const reply = manager.getFinalResult() as Message;
    expect(reply.metadata).toMatchObject({ error: { code: 'task_ended' } });
    expect(reply.parts[0]!.content).toMatchObject({ value: expect.stringContaining('Task t1 ended (completed) before this message reached it') });
    expect(await taskStore.load('t1', context)).toEqual(completed);
  });
});
