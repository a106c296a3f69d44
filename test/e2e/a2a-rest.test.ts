import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { TOKEN, a2aProject, eventState, messageText, sendTask, startA2aCli, userMessage, type A2aCli } from '../adapters/a2a/a2a-cli.js';

let model: ScriptedOpenAIServer;
let cwd: string;
let cli: A2aCli;
let client: Client;
let restUrl: string;
const BOB_TOKEN = 'bob-token-0123456789abcdef';
/** Every URL the REST client called, to prove it used the HTTP+JSON binding. */
const calledUrls: string[] = [];

/** The SDK's own client with only its REST (HTTP+JSON) transport, so it must use that binding. */
async function restClient(token: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    request.headers.set('authorization', `Bearer ${token}`);
    calledUrls.push(`${request.method} ${request.url}`);
    return fetch(request);
  };
  // Not `createFrom(default, …)`: that keeps the default JSON-RPC transport, which the card lists first.
  const factory = new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) });
  return factory.createFromUrl(cli.origin);
}

beforeAll(async () => {
  model = await startScriptedOpenAIServer();
  cwd = a2aProject({ server: { auth: { principals: { bob: BOB_TOKEN } } } });
  cli = await startA2aCli({ cwd, args: ['--adapter', 'a2a', '--model', 'openai-compatible:scripted', '--base-url', model.url] });
  restUrl = `${cli.origin}/a2a/rest`;
  // Every REST call below goes through this client; a JSON-RPC request would fail the route checks.
  client = await restClient(TOKEN);
});
afterAll(async () => {
  await cli?.close();
  await model?.close();
});

const send = (text: string, ids: { contextId?: string; taskId?: string } = {}): Promise<Task> => sendTask(client, text, ids);

function streamedText(events: StreamResponse[]): string {
  return events
    .flatMap((event) => (event.payload?.$case === 'statusUpdate' && event.payload.value.status?.state === TaskState.TASK_STATE_WORKING ? [messageText(event.payload.value.status.message)] : []))
    .join('');
}

const rest = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  fetch(`${restUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${TOKEN}`, ...init.headers } });

type RestErrorBody = { error: { code: number; status: string; message: string; details: Array<{ reason?: string }> } };

describe('A2A HTTP+JSON (REST) binding (the built CLI, --adapter a2a, driven by the SDK REST transport)', () => {
  it('the card lists the REST interface for protocol 1.0 (not for 0.3, whose routes are not served)', async () => {
    const card = (await (await fetch(`${cli.origin}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as { supportedInterfaces: unknown[] };
    expect(card.supportedInterfaces).toContainEqual({ url: restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' });
    const legacy = (await (await fetch(`${cli.origin}/.well-known/agent-card.json`)).json()) as { preferredTransport: string; additionalInterfaces?: Array<{ transport: string }> };
    expect(legacy.preferredTransport).toBe('JSONRPC');
    expect((legacy.additionalInterfaces ?? []).some((intf) => intf.transport === 'HTTP+JSON')).toBe(false);
  });

  it('message:send runs a turn and GET /tasks/{id} returns it; GET /tasks lists it', async () => {
    model.push({ text: 'Hello over REST.' });
    const task = await send('hi rest');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(task.status?.message)).toBe('Hello over REST.');
    const again = await client.getTask({ tenant: '', id: task.id });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(again.history[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'hi rest' });
    const listed = await client.listTasks({ tenant: '', contextId: task.contextId, status: 0, pageToken: '', includeArtifacts: false, statusTimestampAfter: undefined });
    expect(listed.tasks.map((entry) => entry.id)).toEqual([task.id]);
    expect(calledUrls.filter((url) => !url.includes('/.well-known/'))).toEqual([
      `POST ${restUrl}/message:send`,
      `GET ${restUrl}/tasks/${task.id}`,
      `GET ${restUrl}/tasks?contextId=${task.contextId}&includeArtifacts=false`,
    ]);
    const missing = await rest(`/tasks/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as RestErrorBody).error).toMatchObject({ code: 404, status: 'NOT_FOUND', details: [expect.objectContaining({ reason: 'TASK_NOT_FOUND' })] });
  });

  it('message:stream: submitted, streamed text as working updates, completed last (SSE)', async () => {
    model.push({ text: 'A streamed REST answer.', chunkDelayMs: 5 });
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(userMessage('stream over rest'))) events.push(event);
    expect(eventState(events[0]!)).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(streamedText(events)).toBe('A streamed REST answer.');
    expect(eventState(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a write asks first (input-required) and the answer over REST runs it', async () => {
    model.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'rest.txt', content: 'via rest\n' } }] }, { text: 'Wrote rest.txt.' });
    const asked = await send('write rest.txt');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(existsSync(join(cwd, 'rest.txt'))).toBe(false);
    const done = await send('allow', { taskId: asked.id, contextId: asked.contextId });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(readFileSync(join(cwd, 'rest.txt'), 'utf8')).toBe('via rest\n');
  });

  it('POST /tasks/{id}:cancel mid-turn ends the task canceled; :subscribe on it then refuses (terminal)', async () => {
    const words = Array.from({ length: 200 }, (_, index) => `word${index} `).join('');
    model.push({ text: words, chunkDelayMs: 20 });
    const events: StreamResponse[] = [];
    let canceled: Task | undefined;
    for await (const event of client.sendMessageStream(userMessage('talk for a while'))) {
      events.push(event);
      if (!canceled && streamedText(events).length > 0) {
        const taskId = event.payload?.$case === 'statusUpdate' ? event.payload.value.taskId : '';
        canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      }
    }
    expect(canceled?.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const states = events.map(eventState).filter((state) => state !== undefined);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    expect(streamedText(events).length).toBeLessThan(words.length);
    const stored = await client.getTask({ tenant: '', id: canceled!.id });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const resubscribe = async () => {
      for await (const _event of client.resubscribeTask({ tenant: '', id: stored.id })) void _event;
    };
    await expect(resubscribe()).rejects.toThrow(/terminal/);
  });

  it('GET /tasks/{id}:subscribe picks a running task up again after the stream was dropped (SSE to its end)', async () => {
    model.push({ text: Array.from({ length: 40 }, (_, index) => `part${index} `).join(''), chunkDelayMs: 15 });
    let taskId = '';
    for await (const event of client.sendMessageStream(userMessage('long answer'))) {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
      break;
    }
    const response = await rest(`/tasks/${encodeURIComponent(taskId)}:subscribe`, { headers: { accept: 'text/event-stream' } });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = (await response.text())
      .split('\n\n')
      .filter((chunk) => chunk.startsWith('data: '))
      .map((chunk) => JSON.parse(chunk.slice(6)) as { task?: { id: string }; statusUpdate?: { status: { state: string } } });
    expect(events[0]?.task?.id).toBe(taskId);
    expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('tasks are scoped to the principal, as over JSON-RPC: bob neither gets, lists nor cancels the default user\'s task', async () => {
    model.push({ text: 'Private.' });
    const task = await send('mine');
    const bob = await restClient(BOB_TOKEN);
    await expect(bob.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found/i);
    await expect(bob.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(/not found/i);
    const listed = await bob.listTasks({ tenant: '', contextId: '', status: 0, pageToken: '', includeArtifacts: false, statusTimestampAfter: undefined });
    expect(listed.tasks.map((entry) => entry.id)).not.toContain(task.id);
    expect((await client.getTask({ tenant: '', id: task.id })).id).toBe(task.id);
  });

  it('refuses a missing or wrong token with 401, a bearer challenge and a REST error body', async () => {
    const missing = await fetch(`${restUrl}/tasks/x`, { headers: { 'a2a-version': '1.0' } });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await missing.json()) as RestErrorBody).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    const intruder = await restClient('wrong-token-wrong-token');
    await expect(intruder.sendMessage(userMessage('let me in'))).rejects.toThrow();
  });

  it('answers malformed requests with 400 and a JSON error, and keeps serving', async () => {
    const badJson = await rest('/message:send', { method: 'POST', body: '{"message": ' });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as RestErrorBody).error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    const noMessage = await rest('/message:send', { method: 'POST', body: '{}' });
    expect(noMessage.status).toBe(400);
    expect(((await noMessage.json()) as RestErrorBody).error.message).toMatch(/message is required/);
    const notObject = await rest('/message:stream', { method: 'POST', body: '[1,2]' });
    expect(notObject.status).toBe(400);
    const notMessage = await rest('/message:send', { method: 'POST', body: '{"message":"not a message"}' });
    expect(notMessage.status).toBe(400);
    expect(((await notMessage.json()) as RestErrorBody).error.status).toBe('INVALID_ARGUMENT');
    const badHistory = await rest('/tasks/x?historyLength=-1');
    expect(badHistory.status).toBe(400);
    const wrongType = await rest('/message:send', { method: 'POST', body: 'hi', headers: { 'content-type': 'text/plain' } });
    expect(wrongType.status).toBe(400);
    expect(((await wrongType.json()) as RestErrorBody).error.details[0]).toMatchObject({ reason: 'CONTENT_TYPE_NOT_SUPPORTED' });
    const oldVersion = await rest('/tasks', { headers: { 'a2a-version': '0.3' } });
    expect(oldVersion.status).toBe(400);
    expect(((await oldVersion.json()) as RestErrorBody).error.details[0]).toMatchObject({ reason: 'VERSION_NOT_SUPPORTED' });
    const unknown = await rest('/nowhere');
    expect(unknown.status).toBe(404);
    const wrongMethod = await rest('/message:send');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    // Still alive and serving turns.
    model.push({ text: 'Still here.' });
    expect(messageText((await send('still alive?')).status?.message)).toBe('Still here.');
    expect(cli.child.exitCode).toBeNull();
  });
});
