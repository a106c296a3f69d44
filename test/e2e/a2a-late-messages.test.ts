import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type RecordedRequest, type ScriptStep, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { a2aProject, messageText, sendTask, startA2aCli, userMessage, type A2aCli } from '../adapters/a2a/a2a-cli.js';
import { waitFor, waitForAsync } from '../helpers/wait-for.js';

/**
 * A message a peer sends on a running task is answered in that task, whenever it comes: while the
 * turn's last (text-only) step streams, before the task's turn started (it waits behind another
 * task of the conversation), and after the turn's last step but before the task's final state.
 */

let model: ScriptedOpenAIServer;
let cwd: string;
let cli: A2aCli;
let client: Client;
/** Replies held until the test releases them, by the user text they answer. */
const holds = new Map<string, { step: Partial<ScriptStep>; release(): void }>();

/** The user texts sent since the model last spoke: what a reply answers. */
function unanswered(request: RecordedRequest): string[] {
  const texts: string[] = [];
  for (const message of request.messages) {
    if (message.role === 'assistant') texts.length = 0;
    if (message.role !== 'user') continue;
    const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    texts.push(/"text":"([^"]*)"/.exec(content)?.[1] ?? content);
  }
  return texts;
}

function hold(text: string, how: 'whole' | 'mid-stream'): () => void {
  let release!: () => void;
  const until = new Promise<void>((resolve) => (release = resolve));
  holds.set(text, { step: how === 'whole' ? { until } : { holdAfter: { chunks: 1, until } }, release });
  return release;
}

beforeAll(async () => {
  model = await startScriptedOpenAIServer((request) => {
    const texts = unanswered(request);
    const held = texts.map((text) => holds.get(text)).find(Boolean);
    if (held) for (const text of texts) holds.delete(text);
    return { text: `Answer to: ${texts.join(' + ')}. `, chunkDelayMs: 2, ...held?.step };
  });
  cwd = a2aProject();
  // The turn's end waits while `hold-turn-end` exists, until `release-turn-end` does: the window
  // between a turn's last step and its task's final state, held open.
  writeFileSync(
    join(cwd, '.plaited/config.ts'),
    `import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
export default {
  hooks: {
    async onTurnEnd() {
      if (!existsSync(${JSON.stringify(join(cwd, 'hold-turn-end'))})) return;
      unlinkSync(${JSON.stringify(join(cwd, 'hold-turn-end'))});
      writeFileSync(${JSON.stringify(join(cwd, 'turn-end-held'))}, '');
      while (!existsSync(${JSON.stringify(join(cwd, 'release-turn-end'))})) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  },
};
`,
  );
  cli = await startA2aCli({ cwd, args: ['--adapter', 'a2a', '--model', 'openai-compatible:scripted', '--base-url', model.url] });
  client = await cli.client();
});
afterAll(async () => {
  await cli?.close();
  await model?.close();
});

const send = (text: string, ids: { contextId?: string; taskId?: string } = {}): Promise<Task> => sendTask(client, text, ids);

/** Opens a stream for a new task and returns the task as its first event gives it, and the rest of the stream. */
async function startTask(text: string, contextId?: string): Promise<{ task: Task; rest: Promise<StreamResponse[]> }> {
  const stream = client.sendMessageStream(userMessage(text, { contextId }))[Symbol.asyncIterator]();
  const first = (await stream.next()).value as StreamResponse;
  if (first.payload?.$case !== 'task') throw new Error(`expected the task first, got ${JSON.stringify(first)}`);
  const rest = (async () => {
    const events: StreamResponse[] = [];
    for (let next = await stream.next(); !next.done; next = await stream.next()) events.push(next.value);
    return events;
  })();
  return { task: first.payload.value, rest };
}

/** Resolves once the SDK stored the message in the task's history: it is on its way to the executor. */
async function arrived(task: Task, text: string): Promise<void> {
  const inHistory = async () => (await client.getTask({ tenant: '', id: task.id })).history.some((message) => messageText(message) === text);
  await waitForAsync(inHistory, 10_000, `"${text}" on task ${task.id}`);
}

function finalText(events: StreamResponse[]): string {
  const last = events.at(-1);
  return last?.payload?.$case === 'statusUpdate' ? messageText(last.payload.value.status?.message) : '';
}

describe('A2A: a message on a running task is answered in that task', () => {
  it('sent while the last, text-only step streams: the task answers it too, and its sender gets that answer', async () => {
    const release = hold('first question', 'mid-stream');
    const asked = model.requests.length;
    const { task, rest } = await startTask('first question');
    await waitFor(() => model.requests.length > asked, 10_000, 'the model step of the task');
    const late = send('a late addition', { taskId: task.id, contextId: task.contextId });
    await arrived(task, 'a late addition');
    release();
    const events = await rest;
    const answered = await late;
    expect(answered.id).toBe(task.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(answered.status?.message)).toBe('Answer to: first question. \n\nAnswer to: a late addition. ');
    expect(finalText(events)).toBe('Answer to: first question. \n\nAnswer to: a late addition. ');
    const stored = await client.getTask({ tenant: '', id: task.id });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(stored.status?.message)).toContain('Answer to: a late addition.');
  });

  it('sent before the task`s turn started (behind another task of the conversation): it joins its own task, never the other', async () => {
    const releaseFirst = hold('the earlier task', 'whole');
    const asked = model.requests.length;
    const earlier = await startTask('the earlier task');
    await waitFor(() => model.requests.length > asked, 10_000, 'the earlier task`s model step');
    const later = await startTask('the later task', earlier.task.contextId);
    const late = send('for the later task only', { taskId: later.task.id, contextId: later.task.contextId });
    await arrived(later.task, 'for the later task only');
    releaseFirst();
    const [earlierEvents, laterEvents] = await Promise.all([earlier.rest, later.rest]);
    expect(finalText(earlierEvents)).toBe('Answer to: the earlier task. ');
    const laterAnswer = finalText(laterEvents);
    expect(laterAnswer).toContain('the later task');
    expect(laterAnswer).toContain('for the later task only');
    const answered = await late;
    expect(answered.id).toBe(later.task.id);
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(answered.status?.message)).toBe(laterAnswer);
  });

  it('sent after the turn`s last step, before the task`s final state: it runs as one more turn of the same task', async () => {
    writeFileSync(join(cwd, 'hold-turn-end'), '');
    const { task, rest } = await startTask('a quick one');
    await waitFor(() => existsSync(join(cwd, 'turn-end-held')), 10_000, 'the turn held at its end');
    const late = send('one more thing', { taskId: task.id, contextId: task.contextId });
    await arrived(task, 'one more thing');
    writeFileSync(join(cwd, 'release-turn-end'), '');
    const events = await rest;
    expect(finalText(events)).toBe('Answer to: a quick one. \n\nAnswer to: one more thing. ');
    const answered = await late;
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(answered.status?.message)).toBe('Answer to: a quick one. \n\nAnswer to: one more thing. ');
    // The conversation goes on after it: the next task sees both answers.
    const next = await send('and next', { contextId: task.contextId });
    expect(messageText(next.status?.message)).toBe('Answer to: and next. ');
    expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain('Answer to: one more thing.');
  });
});
