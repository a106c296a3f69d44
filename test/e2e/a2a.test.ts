import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { TOKEN, a2aProject, eventState, messageText, sendTask, startA2aCli, userMessage, type A2aCli } from '../adapters/a2a/a2a-cli.js';
import { AGENT_CARD_SCHEMA } from '../adapters/a2a/agent-card-schema.js';
import { waitFor, waitForAsync } from '../helpers/wait-for.js';

let model: ScriptedOpenAIServer;
let cwd: string;
let cli: A2aCli;
let client: Client;

const BOB_TOKEN = 'bob-token-0123456789abcdef';
const modelArgs = () => ['--model', 'openai-compatible:scripted', '--base-url', model.url];

beforeAll(async () => {
  model = await startScriptedOpenAIServer();
  cwd = a2aProject({ server: { auth: { principals: { bob: BOB_TOKEN } } } });
  cli = await startA2aCli({ cwd, args: ['--adapter', 'a2a', ...modelArgs()] });
  client = await cli.client();
});
afterAll(async () => {
  await cli?.close();
  await model?.close();
});

const send = (text: string, ids: { contextId?: string; taskId?: string } = {}, on: Client = client): Promise<Task> => sendTask(on, text, ids);

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Working-status text updates, joined: what a peer sees streamed. */
function streamedText(events: StreamResponse[]): string {
  return events
    .flatMap((event) => (event.payload?.$case === 'statusUpdate' && event.payload.value.status?.state === TaskState.TASK_STATE_WORKING ? [messageText(event.payload.value.status.message)] : []))
    .join('');
}

const rpc = (body: string, headers: Record<string, string> = {}) =>
  fetch(cli.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers }, body });

describe('A2A adapter (the built CLI, --adapter a2a, driven by @a2a-js/sdk)', () => {
  it('serves a schema-valid agent card: coding skill, the project skills, streaming, bearer auth', async () => {
    const response = await fetch(`${cli.origin}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(response.status).toBe(200);
    const card = (await response.json()) as Record<string, unknown>;
    const validate = new Ajv({ allErrors: true }).compile(AGENT_CARD_SCHEMA);
    expect(validate(card), JSON.stringify(validate.errors)).toBe(true);
    const skills = (card.skills as Array<{ id: string }>).map((skill) => skill.id);
    expect(skills).toEqual(['coding', 'skill:release-notes']);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
    expect(card.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: expect.objectContaining({ scheme: 'bearer' }) } });
    // It names where the token is set, not the command-line flag that shows it to every local user.
    expect(JSON.stringify(card.securitySchemes)).toContain('--auth-token-file, PLAITED_AUTH_TOKEN or server.auth.token');
    expect(card.supportedInterfaces).toEqual([
      { url: cli.rpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: cli.rpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${cli.origin}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    const viaSdk = await client.getAgentCard();
    expect(viaSdk.name).toBe('plaited-agent');
  });

  it('speaks A2A 0.3 to a client that does not ask for 1.0: the 0.3 card, message/send and message/stream', async () => {
    const card = (await (await fetch(`${cli.origin}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: cli.rpcUrl, preferredTransport: 'JSONRPC', securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, security: [{ bearer: [] }] });
    model.push({ text: 'Hello, 0.3 peer.' });
    const message = { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text: 'hi from 0.3' }] };
    const reply = (await (await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message } }))).json()) as {
      result: { kind: string; status: { state: string; message: { parts: Array<{ kind: string; text: string }> } } };
    };
    expect(reply.result.kind).toBe('task');
    expect(reply.result.status.state).toBe('completed');
    expect(reply.result.status.message.parts[0]).toEqual({ kind: 'text', text: 'Hello, 0.3 peer.' });
    model.push({ text: 'Streamed to 0.3.' });
    const stream = await rpc(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'message/stream', params: { message: { ...message, messageId: crypto.randomUUID() } } }));
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = (await stream.text())
      .split('\n\n')
      .filter((chunk) => chunk.startsWith('data: '))
      .map((chunk) => JSON.parse(chunk.slice(6)) as { id: number; result: { kind: string; status?: { state: string } } });
    expect(events.every((event) => event.id === 2)).toBe(true);
    expect(events[0]?.result.kind).toBe('task');
    expect(events.at(-1)?.result).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
  });

  it('message/send runs a turn: the task completes with the answer as its message, and tasks/get returns it', async () => {
    model.push({ text: 'Hello from the A2A face.' });
    const task = await send('hi');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(task.status?.message)).toBe('Hello from the A2A face.');
    const again = await client.getTask({ tenant: '', id: task.id });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(again.history[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'hi' });
  });

  it('message/stream: submitted, streamed text as working updates, completed last', async () => {
    model.push({ text: 'A streamed answer in several words.', chunkDelayMs: 5 });
    const events = await collect(client.sendMessageStream(userMessage('stream please')));
    expect(eventState(events[0]!)).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(streamedText(events)).toBe('A streamed answer in several words.');
    expect(eventState(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('thinking streams as one working-status `thought` step, kept out of the answer', async () => {
    model.push({ reasoning: 'Weighing the two options.', text: 'Option B.', chunkDelayMs: 5 });
    const events = await collect(client.sendMessageStream(userMessage('pick one')));
    const thoughts = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate'
        ? (event.payload.value.status?.message?.parts ?? []).flatMap((part) =>
            part.content?.$case === 'data' && (part.content.value as { type?: string }).type === 'thought' ? [part.content.value] : [],
          )
        : [],
    );
    expect(thoughts).toEqual([{ type: 'thought', text: 'Weighing the two options.' }]);
    expect(streamedText(events)).toBe('Option B.');
    expect(eventState(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a write asks first (input-required); the answer "allow" runs it and the file comes back as a diff artifact', async () => {
    model.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'alpha\nbeta\n' } }] }, { text: 'Wrote notes.txt.' });
    const asked = await send('write notes');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const question = asked.status?.message?.parts.find((part) => part.content?.$case === 'data')?.content;
    expect(question).toMatchObject({ $case: 'data', value: { type: 'permission-request', kind: 'edit' } });
    expect(existsSync(join(cwd, 'notes.txt'))).toBe(false);

    const done = await send('allow', { taskId: asked.id, contextId: asked.contextId });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
    expect(done.artifacts).toHaveLength(1);
    const artifact = done.artifacts[0]!;
    expect(artifact.name).toBe(join(cwd, 'notes.txt'));
    const diff = artifact.parts.find((part) => part.mediaType === 'text/x-diff')?.content;
    expect(diff?.$case === 'text' && diff.value).toContain('+alpha');
  });

  it('the answer "reject" refuses the call: nothing is written and the turn goes on to complete', async () => {
    model.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'rejected.txt', content: 'no' } }] }, { text: 'Understood, not written.' });
    const asked = await send('write rejected');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const unclear = await send('maybe later?', { taskId: asked.id, contextId: asked.contextId });
    expect(unclear.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(messageText(unclear.status?.message)).toContain('not an answer');
    const done = await send('reject', { taskId: asked.id, contextId: asked.contextId });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(done.status?.message)).toBe('Understood, not written.');
    expect(existsSync(join(cwd, 'rejected.txt'))).toBe(false);
    const toolResult = model.requests.at(-1)!.messages.find((message) => message.role === 'tool');
    expect(JSON.stringify(toolResult?.content)).toMatch(/reject/i);
  });

  it('tasks/cancel mid-turn: the task ends canceled and no update follows the canceled state', async () => {
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
    expect(states.filter((state) => state === TaskState.TASK_STATE_CANCELED)).toHaveLength(1);
    expect(streamedText(events).length).toBeLessThan(words.length);
    // The stored task agrees, and its last history entry is the cancellation.
    const stored = await client.getTask({ tenant: '', id: canceled!.id });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(messageText(stored.history.at(-1))).toBe('The task was canceled.');
    await expect(collect(client.resubscribeTask({ tenant: '', id: stored.id }))).rejects.toThrow(/terminal/);
  });

  it('tasks/cancel while a question is open cancels the turn: the call never runs', async () => {
    model.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'never.txt', content: 'no' } }] });
    const asked = await send('write never');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const canceled = await client.cancelTask({ tenant: '', id: asked.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(existsSync(join(cwd, 'never.txt'))).toBe(false);
    await expect(send('allow', { taskId: asked.id, contextId: asked.contextId })).rejects.toThrow(/terminal/);
    // The refusal names the state and the next step, over JSON-RPC 0.3 and REST alike.
    const late = { kind: 'message', role: 'user', messageId: crypto.randomUUID(), taskId: asked.id, contextId: asked.contextId, parts: [{ kind: 'text', text: 'allow' }] };
    const refused = (await (await rpc(JSON.stringify({ jsonrpc: '2.0', id: 13, method: 'message/send', params: { message: late } }))).json()) as { error: { message: string } };
    expect(refused.error.message).toBe(`Task ${asked.id} is in a terminal state (canceled) and takes no more messages: a task is one turn. Send a new message with the same contextId and no taskId to go on with the conversation.`);
    const viaRest = await fetch(`${cli.origin}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: crypto.randomUUID(), taskId: asked.id, contextId: asked.contextId, role: 'ROLE_USER', parts: [{ text: 'allow' }] } }),
    });
    expect(((await viaRest.json()) as { error: { message: string } }).error.message).toMatch(/in a terminal state \(canceled\) and takes no more messages/);
    model.push({ text: 'Next task.' });
    expect(messageText((await send('next', { contextId: asked.contextId })).status?.message)).toBe('Next task.');
  });

  it('tasks/resubscribe picks a running task up again after the stream was dropped', async () => {
    model.push({ text: Array.from({ length: 40 }, (_, index) => `part${index} `).join(''), chunkDelayMs: 15 });
    let taskId = '';
    for await (const event of client.sendMessageStream(userMessage('long answer'))) {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
      break;
    }
    const events = await collect(client.resubscribeTask({ tenant: '', id: taskId }));
    expect(events[0]?.payload?.$case).toBe('task');
    expect(eventState(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a message on a running task joins its turn, and the peer streaming the task streams on to the end', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The first step (a read, no question) is held after its first chunk; the message joins before the second.
    model.push({ toolCalls: [{ name: 'glob', arguments: { pattern: '*.md' } }], holdAfter: { chunks: 1, until: held } }, { text: 'Listed, and noted the tests.' });
    const asked = model.requests.length;
    const stream = client.sendMessageStream(userMessage('long job'))[Symbol.asyncIterator]();
    const events: StreamResponse[] = [(await stream.next()).value as StreamResponse];
    const task = events[0]?.payload?.$case === 'task' ? events[0].payload.value : undefined;
    await waitFor(() => model.requests.length > asked, 10_000, 'the first model call');
    // Another peer (or the same one) adds to the running task.
    const steering = send('also mention the tests', { taskId: task!.id, contextId: task!.contextId });
    const arrived = async () => (await client.getTask({ tenant: '', id: task!.id })).history.some((message) => messageText(message) === 'also mention the tests');
    await waitForAsync(arrived, 10_000, 'the message on the running task');
    release();
    for (let next = await stream.next(); !next.done; next = await stream.next()) events.push(next.value);
    expect(eventState(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(streamedText(events)).toBe('Listed, and noted the tests.');
    const steered = await steering;
    expect(steered.id).toBe(task!.id);
    expect(steered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(steered.status?.message)).toBe('Listed, and noted the tests.');
    expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain('also mention the tests');
  });

  it('malformed requests get JSON-RPC errors and the server goes on serving', async () => {
    const cases: Array<[string, Record<string, string>, number]> = [
      ['{not json', {}, -32700],
      ['[1, 2]', {}, -32600],
      ['{"jsonrpc":"2.0","id":7,"method":"tasks/get"}', {}, -32602],
      ['{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{"id":"no-such-task"}}', {}, -32001],
      ['{"jsonrpc":"2.0","id":9,"method":"GetTask","params":{"id":"no-such-task"}}', { 'a2a-version': '1.0' }, -32001],
      ['{"jsonrpc":"2.0","id":10,"method":"message/send","params":{"message":"not a message"}}', {}, -32602],
      ['{"jsonrpc":"2.0","id":11,"method":"GetTask","params":{"id":"x"}}', { 'a2a-version': '9.9' }, -32009],
    ];
    for (const [body, headers, code] of cases) {
      const response = await rpc(body, headers);
      const reply = (await response.json()) as { error?: { code: number } };
      expect(reply.error?.code, body).toBe(code);
    }
    // An unknown 1.0 method is named, with the methods served.
    const unknown = (await (await rpc('{"jsonrpc":"2.0","id":12,"method":"GetTsk","params":{"id":"x"}}', { 'a2a-version': '1.0' })).json()) as { error: { code: number; message: string } };
    expect(unknown.error).toEqual({ code: -32601, message: expect.stringMatching(/^Method not found: GetTsk\. A2A 1\.0 \(A2A-Version: 1\.0\) serves SendMessage, .*GetTask/) });
    const wrongType = await rpc('{}', { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    const huge = await rpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { pad: 'x'.repeat(17 * 1024 * 1024) } })).catch((error: Error) => error);
    if (!(huge instanceof Error)) expect(huge.status).toBe(413);
    model.push({ text: 'Still here.' });
    const task = await send('still alive?');
    expect(messageText(task.status?.message)).toBe('Still here.');
  });

  it('refuses missing or wrong credentials (401 with a bearer challenge); the card stays public', async () => {
    const missing = await fetch(cli.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const refusal = ((await missing.json()) as { error: { code: number; message: string } }).error;
    expect(refusal.code).toBe(-32000);
    expect(refusal.message).toContain('--auth-token-file');
    const wrong = await rpc('{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}', { authorization: 'Bearer wrong-token-wrong-token' });
    expect(wrong.status).toBe(401);
    const intruder = await cli.client('wrong-token-wrong-token');
    await expect(intruder.sendMessage(userMessage('let me in'))).rejects.toThrow();
    const foreign = await rpc('{}', { origin: 'http://evil.example.com' });
    expect(foreign.status).toBe(403);
  });

  it('does not take the WebSocket bearer subprotocol header as a credential on a plain request', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}';
    const subprotocolOnly = await fetch(cli.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'sec-websocket-protocol': `a2a, bearer.${TOKEN}` }, body });
    expect(subprotocolOnly.status).toBe(401);
  });
});

describe('A2A principals', () => {
  it('another principal neither sees the task nor shares the conversation, even with the same contextId', async () => {
    const bob = await cli.client(BOB_TOKEN);
    const contextId = crypto.randomUUID();
    model.push({ text: 'For bob.' });
    const bobs = await send('bob here', { contextId }, bob);
    expect(messageText(bobs.status?.message)).toBe('For bob.');
    await expect(client.getTask({ tenant: '', id: bobs.id })).rejects.toThrow(/not found/i);
    model.push({ text: 'For the local user.' });
    const mine = await send('me here', { contextId });
    expect(mine.metadata?.sessionId).not.toBe(bobs.metadata?.sessionId);
    expect(JSON.stringify(model.requests.at(-1)!.messages)).not.toContain('bob here');
    await expect(bob.getTask({ tenant: '', id: mine.id })).rejects.toThrow(/not found/i);
  });
});

describe('A2A across restarts and unanswered questions', () => {
  it('a restarted server continues the same contextId and still answers tasks/get of a finished task', async () => {
    // The first run is the file's CLI, in the folder it started in (a CLI start is most of a test's
    // CPU): no test after this one uses it.
    const project = cwd;
    const first = cli;
    model.push({ text: 'Noted: kiwi.' });
    const contextId = crypto.randomUUID();
    const before = await send('the code word is kiwi', { contextId }, client);
    expect(before.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await first.close();

    // Restarted as a replica binds: on every address, with no adapters.a2a.publicUrl yet.
    const second = await startA2aCli({ cwd: project, args: ['--adapter', 'a2a', '--host', '0.0.0.0', ...modelArgs()] });
    try {
      // Its card names the loopback URL, which a peer elsewhere cannot reach: the operator is told.
      const unreachable = /warn: A2A listens on every address \(0\.0\.0\.0\), but its agent card names http:\/\/127\.0\.0\.1:\d+\/a2a, which peers on other machines cannot reach: set adapters\.a2a\.publicUrl/;
      await waitFor(() => unreachable.test(second.stderr()), 10_000, 'the warning about the card URL');
      const peer = await second.client();
      model.push({ text: 'It was kiwi.' });
      const after = await send('what was the code word?', { contextId }, peer);
      expect(after.contextId).toBe(contextId);
      expect(messageText(after.status?.message)).toBe('It was kiwi.');
      const sent = JSON.stringify(model.requests.at(-1)!.messages);
      expect(sent).toContain('the code word is kiwi');
      expect(sent).toContain('Noted: kiwi.');
      const old = await peer.getTask({ tenant: '', id: before.id });
      expect(old.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(messageText(old.status?.message)).toBe('Noted: kiwi.');
    } finally {
      await second.close();
    }
  });

  it('a question nobody answers is rejected after adapters.a2a.inputTimeoutMs and the turn completes', async () => {
    const project = a2aProject({ adapters: { a2a: { inputTimeoutMs: 300 } } });
    const server = await startA2aCli({ cwd: project, args: ['--adapter', 'a2a', ...modelArgs()] });
    try {
      const peer = await server.client();
      model.push({ toolCalls: [{ name: 'write_file', arguments: { path: 'late.txt', content: 'late' } }] }, { text: 'Nobody answered.' });
      const asked = await send('write late', {}, peer);
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      let task = asked;
      const deadline = Date.now() + 15_000;
      while (task.status?.state !== TaskState.TASK_STATE_COMPLETED) {
        if (Date.now() > deadline) throw new Error(`the task did not complete after the timeout: ${JSON.stringify(task.status)}`);
        await new Promise((tick) => setTimeout(tick, 50));
        task = await peer.getTask({ tenant: '', id: asked.id });
      }
      expect(existsSync(join(project, 'late.txt'))).toBe(false);
      expect(task.history.map(messageText).join('\n')).toContain('No answer within 300 ms: "Write late.txt" was rejected.');
      // The model is told the question went unanswered, not that the peer said no.
      expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain('Not run: the A2A peer was asked and gave no answer within 300 ms');
    } finally {
      await server.close();
    }
  });
});
