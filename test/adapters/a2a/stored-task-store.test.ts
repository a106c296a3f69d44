import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Message } from '@a2a-js/sdk';
import { DefaultExecutionEventBus, ResultManager, ServerCallContext, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import { afterEach, describe, expect, it } from 'vitest';
import { agentMessage, textPart } from '../../../src/adapters/a2a/a2a-messages.js';
import { A2aPrincipal } from '../../../src/adapters/a2a/a2a-principal.js';
import { TaskPublisher } from '../../../src/adapters/a2a/a2a-task-publisher.js';
import { StoredTaskStore } from '../../../src/adapters/a2a/stored-task-store.js';
import { SqliteA2aTaskRecords } from '../../../src/storage/sqlite/sqlite-a2a-task-records.js';

/**
 * The two races that could take a finished task back, replayed in their bad order with the SDK's
 * own `ResultManager` (what the task recorder and every request store through) on the real
 * SQLite records. The store's rule (a final task keeps its state and body) is what ends them; the
 * record contract suite holds both drivers to it.
 */
const opened: SqliteA2aTaskRecords[] = [];
afterEach(async () => {
  for (const records of opened.splice(0)) await records.close();
});

const ids = { taskId: 't1', contextId: 'c1' };
const userMessage = (text: string, messageId: string): Message => ({ ...agentMessage(ids, [textPart(text)]), messageId, role: 1 });
const texts = (history: Message[] | undefined) => (history ?? []).map((message) => message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join(''));

/** A bus whose events one `ResultManager` stores in order, as a request's reader does. */
function storedBus(store: StoredTaskStore, context: ServerCallContext, message?: Message) {
  const bus = new DefaultExecutionEventBus();
  const manager = new ResultManager(store, context);
  if (message) manager.setContext(message);
  let chain = Promise.resolve();
  bus.on('event', (event: AgentExecutionEvent) => (chain = chain.then(() => manager.processEvent(event))));
  return { publisher: new TaskPublisher(bus, ids), stored: () => chain, manager };
}

async function completedTask() {
  const records = new SqliteA2aTaskRecords(join(mkdtempSync(join(tmpdir(), 'plaited-a2a-final-')), 'state.db'));
  opened.push(records);
  const store = new StoredTaskStore(records);
  const context = new ServerCallContext({ user: new A2aPrincipal('alice') });
  const turn = storedBus(store, context, userMessage('What is 2+2?', 'm-ask'));
  turn.publisher.task(TaskState.TASK_STATE_SUBMITTED, [userMessage('What is 2+2?', 'm-ask')]);
  turn.publisher.status(TaskState.TASK_STATE_WORKING);
  await turn.stored();
  return { store, context, turn };
}

describe('StoredTaskStore: a finished task stays finished', () => {
  it('a follow-up the SDK appends to the task it read as working, saved after the terminal save, leaves the task completed', async () => {
    const { store, context, turn } = await completedTask();
    // The request handler reads the task (still working) to append the follow-up message...
    const read = (await store.load('t1', context))!;
    expect(read.status!.state).toBe(TaskState.TASK_STATE_WORKING);
    // ...the turn ends and its terminal state is stored...
    turn.publisher.finish(TaskState.TASK_STATE_COMPLETED, agentMessage(ids, [textPart('4')]));
    await turn.stored();
    // ...then the handler's save (no per-task lock) lands.
    read.history = [...read.history, userMessage('And 3+3?', 'm-late')];
    await store.save(read, context);
    const after = (await store.load('t1', context))!;
    expect(after.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(texts(after.history)).toEqual(['What is 2+2?', '4']);
    expect(await store.saveAs(read, 'alice')).toBe(false);
  });

  it('a "no longer running" failure published after the task completed (it left the running map meanwhile) does not overwrite it', async () => {
    const { store, context, turn } = await completedTask();
    turn.publisher.finish(TaskState.TASK_STATE_COMPLETED, agentMessage(ids, [textPart('4')]));
    await turn.stored();
    const completed = await store.load('t1', context);
    // What the executor publishes for a task it does not run: the task (working), then failed.
    const late = storedBus(store, context, userMessage('And 3+3?', 'm-late'));
    late.publisher.task(TaskState.TASK_STATE_WORKING);
    late.publisher.status(TaskState.TASK_STATE_FAILED, agentMessage(ids, [textPart('This task is no longer running; send a new message without a taskId to continue the conversation.')]));
    await late.stored();
    expect(await store.load('t1', context)).toEqual(completed);
    // The request answers with the task as stored, not the failure.
    expect(late.manager.getFinalResult()).toMatchObject({ status: { state: TaskState.TASK_STATE_COMPLETED } });
  });
});
