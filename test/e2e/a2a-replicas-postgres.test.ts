import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { a2aProject, eventState, isTask, messageText, startA2aCli, userMessage, type A2aCli } from '../adapters/a2a/a2a-cli.js';
import { INTERRUPTED_TEXT } from '../../src/adapters/a2a/interrupted-tasks.js';

/**
 * The separate check of issue 27: two A2A replicas (the built CLI, `--adapter a2a` over HTTP
 * with bearer auth) on one throwaway PostgreSQL. Each replica has its own folder (its config,
 * its index); the conversations' workspace is the first replica's folder, reachable from both.
 */
let cluster: PostgresCluster;
let model: ScriptedOpenAIServer;
let store: string;
let first: A2aCli;
let second: A2aCli;
const started: A2aCli[] = [];

/** Stops a replica a test started (once: a second close would wait for an exit already seen). */
async function stop(cli: A2aCli): Promise<void> {
  started.splice(started.indexOf(cli), 1);
  await cli.close();
}

const modelArgs = () => ['--model', 'openai-compatible:scripted', '--base-url', model.url];
async function replica(how: 'flag' | 'env'): Promise<A2aCli> {
  const cli =
    how === 'flag'
      ? await startA2aCli({ cwd: a2aProject(), args: ['--adapter', 'a2a', ...modelArgs(), '--store', store] })
      : await startA2aCli({ cwd: a2aProject(), args: ['--adapter', 'a2a', ...modelArgs()], env: { PLAITED_STORE: store } });
  started.push(cli);
  return cli;
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  store = await cluster.createDatabase();
  model = await startScriptedOpenAIServer();
  first = await replica('flag');
  second = await replica('env');
}, 120_000);
afterAll(async () => {
  for (const cli of started) await cli.close();
  await model?.close();
  await cluster?.stop();
}, 60_000);

async function send(on: Client, text: string, ids: { contextId?: string } = {}): Promise<Task> {
  const result = await on.sendMessage(userMessage(text, ids));
  if (!isTask(result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/** Starts a streamed task and returns once its first streamed text arrived (the turn runs), leaving the stream open. */
async function startStreaming(on: Client, text: string, ids: { contextId?: string } = {}): Promise<{ task: Task; rest: Promise<StreamResponse[]> }> {
  const stream = on.sendMessageStream(userMessage(text, ids))[Symbol.asyncIterator]();
  let task: Task | undefined;
  for (;;) {
    const next = await stream.next();
    if (next.done) throw new Error('the stream ended before any text');
    const payload = next.value.payload;
    if (payload?.$case === 'task') task = payload.value;
    if (task && payload?.$case === 'statusUpdate' && messageText(payload.value.status?.message).length > 0) break;
  }
  const rest = (async () => {
    const events: StreamResponse[] = [];
    for (let next = await stream.next(); !next.done; next = await stream.next()) events.push(next.value);
    return events;
  })();
  rest.catch(() => undefined);
  return { task, rest };
}

/** Working-status text updates, joined: what a peer sees streamed. */
function streamedText(events: StreamResponse[]): string {
  return events
    .flatMap((event) => (event.payload?.$case === 'statusUpdate' && event.payload.value.status?.state === TaskState.TASK_STATE_WORKING ? [messageText(event.payload.value.status.message)] : []))
    .join('');
}

async function pollTask(on: Client, id: string, until: (task: Task) => boolean, what: string): Promise<Task> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const task = await on.getTask({ tenant: '', id });
    if (until(task)) return task;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(task.status)}`);
    await new Promise((tick) => setTimeout(tick, 100));
  }
}

const words = (count: number, tag: string) => Array.from({ length: count }, (_, i) => `${tag}${i}`).join(' ');

describe('two A2A replicas sharing one PostgreSQL store', () => {
  it('a task sent through one is read through the other; a follow-up through the other carries the first turn', async () => {
    const a = await first.client();
    const b = await second.client();
    const contextId = crypto.randomUUID();
    model.push({ text: 'Noted: kiwi.' });
    const before = await send(a, 'the code word is kiwi', { contextId });
    expect(before.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const read = await b.getTask({ tenant: '', id: before.id });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(read.status?.message)).toBe('Noted: kiwi.');
    expect((await b.listTasks({ tenant: '', contextId, pageSize: 10, pageToken: '', historyLength: 0, includeArtifacts: false, statusTimestampAfter: '', status: 0 })).tasks.map((task) => task.id)).toEqual([before.id]);

    model.push({ text: 'It was kiwi.' });
    const after = await send(b, 'what was the code word?', { contextId });
    expect(after.contextId).toBe(contextId);
    expect(messageText(after.status?.message)).toBe('It was kiwi.');
    expect(after.metadata?.sessionId).toBe(before.metadata?.sessionId);
    const sent = JSON.stringify(model.requests.at(-1)!.messages);
    expect(sent).toContain('the code word is kiwi');
    expect(sent).toContain('Noted: kiwi.');
  });

  it('tasks/resubscribe on the other replica streams the turn that runs on the first, to its end', async () => {
    const text = words(60, 'r');
    model.push({ text, chunkDelayMs: 40 });
    const running = await startStreaming(await first.client(), 'talk slowly');
    const events: StreamResponse[] = [];
    for await (const event of (await second.client()).resubscribeTask({ tenant: '', id: running.task.id })) events.push(event);
    expect(events[0]?.payload?.$case).toBe('task');
    expect(eventState(events[0]!)).toBe(TaskState.TASK_STATE_WORKING);
    const last = events.at(-1)!;
    expect(eventState(last)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(last.payload?.$case === 'statusUpdate' && messageText(last.payload.value.status?.message)).toBe(text);
    // Live updates, in order, to the end (the first ones may repeat what the task event held).
    const streamed = streamedText(events);
    expect(streamed.length).toBeGreaterThan(0);
    expect(text.endsWith(streamed)).toBe(true);
    expect(eventState((await running.rest).at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('through the other replica, a message on the running task is answered without touching it, a new task on its conversation is rejected, and tasks/cancel stops the turn', async () => {
    model.push({ text: words(400, 'c'), chunkDelayMs: 40 });
    const running = await startStreaming(await first.client(), 'talk until canceled');
    const b = await second.client();
    const reply = await b.sendMessage(userMessage('a word in between', { taskId: running.task.id, contextId: running.task.contextId }));
    expect(isTask(reply)).toBe(false);
    expect(messageText(reply as Parameters<typeof messageText>[0])).toMatch(/running on another replica/);
    expect((await b.getTask({ tenant: '', id: running.task.id })).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    // A new task on the same conversation: one writer per session, so it is refused while the turn runs there.
    const refused = await send(b, 'and another thing', { contextId: running.task.contextId });
    expect(refused.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(messageText(refused.status?.message)).toMatch(/task running on another replica/);
    expect((await b.getTask({ tenant: '', id: running.task.id })).status?.state).toBe(TaskState.TASK_STATE_WORKING);

    const canceled = await b.cancelTask({ tenant: '', id: running.task.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The turn itself stopped on the first replica: its own stream ends canceled.
    expect(eventState((await running.rest).at(-1)!)).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('a replica that starts while another runs a task leaves that task alone', async () => {
    const text = words(300, 's');
    // The reply holds mid-stream until the late replica has started and looked: the task is running all that time.
    let release!: () => void;
    model.push({ text, holdAfter: { chunks: 5, until: new Promise<void>((resolve) => (release = resolve)) } });
    const running = await startStreaming(await first.client(), 'talk slowly again');
    let late: Awaited<ReturnType<typeof replica>>;
    try {
      late = await replica('env'); // listening means its restart recovery has run
      const seen = await (await late.client()).getTask({ tenant: '', id: running.task.id });
      expect(seen.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    } finally {
      release();
    }
    const events = await running.rest;
    expect(eventState(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
    const done = await (await late.client()).getTask({ tenant: '', id: running.task.id });
    expect(messageText(done.status?.message)).toBe(text);
    await stop(late);
  });

  it('a replica started before its database listens, is not ready, then recovers on its own and keeps its tasks there', async () => {
    const url = cluster.url('created_late');
    const early = await startA2aCli({ cwd: a2aProject(), args: ['--adapter', 'a2a', ...modelArgs(), '--store', url] });
    started.push(early);
    expect((await fetch(`${early.origin}/readyz`)).status).toBe(503);
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE created_late');
    await admin.end();
    const deadline = Date.now() + 20_000;
    while ((await fetch(`${early.origin}/readyz`)).status !== 200) {
      if (Date.now() > deadline) throw new Error('the replica did not become ready');
      await new Promise((tick) => setTimeout(tick, 100));
    }
    model.push({ text: 'Late but here.' });
    const done = await send(await early.client(), 'hello');
    expect(messageText(done.status?.message)).toBe('Late but here.');
    const reader = new pg.Client({ connectionString: url });
    await reader.connect();
    const { rows } = await reader.query<{ state: string }>('SELECT state FROM a2a_tasks WHERE task_id = $1', [done.id]);
    await reader.end();
    expect(rows).toEqual([{ state: 'TASK_STATE_COMPLETED' }]);
    await stop(early);
  });

  it('a SIGKILLed replica loses nothing: its finished task reads from the survivor, its running task ends failed there, its conversation goes on', async () => {
    const crashing = await replica('flag');
    const c = await crashing.client();
    model.push({ text: 'Finished before the crash.' });
    const finished = await send(c, 'finish this');
    expect(finished.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    model.push({ text: words(400, 'k'), chunkDelayMs: 50 });
    const running = await startStreaming(c, 'talk until you are killed', { contextId: finished.contextId });
    // The agent itself (the launcher's child: the CLI re-runs itself without its secrets), as a crash would.
    const agentPid = Number(spawnSync('pgrep', ['-P', String(crashing.child.pid)], { encoding: 'utf8' }).stdout.trim().split('\n')[0]);
    expect(agentPid).toBeGreaterThan(0);
    process.kill(agentPid, 'SIGKILL');
    await stop(crashing);

    const b = await second.client();
    const kept = await b.getTask({ tenant: '', id: finished.id });
    expect(kept.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(kept.status?.message)).toBe('Finished before the crash.');
    const ended = await pollTask(b, running.task.id, (task) => task.status?.state !== TaskState.TASK_STATE_WORKING, 'the dead task to end');
    expect(ended.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(messageText(ended.status?.message)).toBe(INTERRUPTED_TEXT);

    model.push({ text: 'Still here.' });
    const next = await send(b, 'are you there?', { contextId: finished.contextId });
    expect(messageText(next.status?.message)).toBe('Still here.');
    expect(JSON.stringify(model.requests.at(-1)!.messages)).toContain('Finished before the crash.');
  });
});
