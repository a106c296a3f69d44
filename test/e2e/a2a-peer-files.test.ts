import { TaskState, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { a2aProject, isTask, messageText, startA2aCli, textOf, userMessage, type A2aCli } from '../adapters/a2a/a2a-cli.js';

let model: ScriptedOpenAIServer;
let cli: A2aCli;
let client: Client;

beforeAll(async () => {
  model = await startScriptedOpenAIServer();
  cli = await startA2aCli({ cwd: a2aProject(), args: ['--adapter', 'a2a', '--model', 'openai-compatible:scripted', '--base-url', model.url] });
  client = await cli.client();
});
afterAll(async () => {
  await cli?.close();
  await model?.close();
});

const file = (bytes: string | Buffer, mediaType: string, filename: string): Part => ({
  content: { $case: 'raw', value: typeof bytes === 'string' ? Buffer.from(bytes) : bytes },
  mediaType,
  filename,
  metadata: undefined,
});

async function send(parts: string | Part[], ids: { contextId?: string; taskId?: string } = {}): Promise<Task> {
  const result = await client.sendMessage(userMessage(parts, ids));
  if (!isTask(result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/** What the model was sent as the last user message. */
const lastUserMessage = () => JSON.stringify(model.requests.at(-1)?.messages.filter((message) => message.role === 'user').at(-1)?.content);

describe('A2A peer: files and data parts (the built CLI, driven by @a2a-js/sdk)', () => {
  it('a text file reaches the model as text under its name; a data part as its JSON', async () => {
    model.push({ text: 'Read it.' });
    const task = await send([textOf('summarize the file'), file('# Notes\nship on friday\n', 'text/markdown', 'NOTES.md'), { content: { $case: 'data', value: { priority: 'high' } }, mediaType: 'application/json', filename: '', metadata: undefined }]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const sent = lastUserMessage();
    expect(sent).toContain('<resource uri=\\"file:///NOTES.md\\">\\n# Notes\\nship on friday\\n');
    expect(sent).toContain(JSON.stringify(JSON.stringify({ priority: 'high' })).slice(1, -1));
  });

  it('a file the model cannot take (a zip) is left out with a notice, and the conversation goes on', async () => {
    const zip = Buffer.from('504b0304140000000800', 'hex');
    model.push({ text: 'I cannot open archives.' }, { text: 'Still talking.' });
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(userMessage([textOf('unpack this'), file(zip, 'application/zip', 'bundle.zip')]))) events.push(event);
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const notices = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate' ? (event.payload.value.status?.message?.parts ?? []).flatMap((part) => (part.content?.$case === 'data' && (part.content.value as { type?: string }).type === 'notice' ? [part.content.value] : [])) : [],
    );
    expect(JSON.stringify(notices)).toMatch(/refused an attachment .*application\/zip/);
    expect(lastUserMessage()).toContain('a file left out');
    const contextId = last?.$case === 'statusUpdate' ? last.value.contextId : '';

    // The stored conversation keeps the zip; the next message on it still gets an answer.
    const next = await send('and now?', { contextId });
    expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(next.status?.message)).toBe('Still talking.');
  });

  it('a megabyte of base64 pasted as text (one unbroken word) gets its answer', async () => {
    model.push({ text: 'That is base64.' });
    const blob = Buffer.from('ABC'.repeat(256 * 1024)).toString('base64');
    const task = await send(`what is this? ${blob}`);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(task.status?.message)).toBe('That is base64.');
    expect(lastUserMessage()).toContain(blob);
  });

  it('an image whose bytes are not what it claims is rejected naming its part; nothing reaches the model', async () => {
    const asked = model.requests.length;
    const task = await send([textOf('look'), textOf(''), file('hello', 'image/png', 'shot.png')]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(messageText(task.status?.message)).toMatch(/^message\.parts\[2\]\.data is not a image\/png image .*: nothing of the message was kept; send it again without it/);
    expect(model.requests).toHaveLength(asked);
  });
});
