import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../helpers/scripted-openai-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { FIXTURE_KEY, requirePrograms } from '../sandbox/sandbox-fixture.js';
import { a2aProject, isTask, messageText, startA2aCli, userMessage, type A2aCli } from './a2a-cli.js';

/**
 * `--adapter sandbox --adapter a2a`: the whole agent runs under bubblewrap in a network
 * namespace of its own, the A2A socket is bound outside and inherited, and the turn's
 * commands run inside the sandbox's walls.
 */
let model: ScriptedOpenAIServer;
let cli: A2aCli;
let cwd: string;
let home: string;

beforeAll(async () => {
  requirePrograms('bwrap', 'socat');
  model = await startScriptedOpenAIServer();
  cwd = a2aProject();
  home = mkdtempSync(join(tmpdir(), 'plaited-a2a-home-'));
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_rsa'), FIXTURE_KEY);
  cli = await startA2aCli({ cwd, args: ['--adapter', 'sandbox', '--adapter', 'a2a', '--model', 'openai-compatible:scripted', '--base-url', model.url], env: { HOME: home } });
});
afterAll(async () => {
  await cli?.close();
  await model?.close();
});

async function sendTask(text: string, ids: { taskId?: string; contextId?: string } = {}) {
  const client = await cli.client();
  const result = await client.sendMessage(userMessage(text, ids));
  if (!isTask(result)) throw new Error('expected a task');
  return result;
}

describe('A2A through the whole-agent sandbox', () => {
  it('serves A2A from inside the sandbox and runs an approved command there: the project is writable, the home secrets are not readable', async () => {
    const outside = join(home, 'escaped.txt');
    model.push(
      { toolCalls: [{ name: 'bash', arguments: { command: `echo made-inside > made.txt; cat ${join(home, '.ssh', 'id_rsa')}; echo escaped > ${outside}; echo finished` } }] },
      { text: 'Ran it.' },
    );
    const asked = await sendTask('run the command');
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = await sendTask('allow', { taskId: asked.id, contextId: asked.contextId });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(done.status?.message)).toBe('Ran it.');
    expect(readFileSync(join(cwd, 'made.txt'), 'utf8')).toBe('made-inside\n');
    const toolResult = JSON.stringify(model.requests.at(-1)!.messages.find((message) => message.role === 'tool')?.content);
    expect(toolResult).toContain('finished');
    expect(toolResult).not.toContain('plaited-fixture-key-not-a-real-secret');
    expect(existsSync(outside)).toBe(false);
  });

  // Last: it ends the CLI.
  it('on SIGTERM the sandboxed agent drains: a turn that runs on for seconds still ends, then the launcher exits 0', async () => {
    // Streamed slowly (~5 s): the launcher used to SIGKILL the agent 3 s after forwarding the signal.
    const reply = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    model.push({ text: reply, chunkDelayMs: 12 });
    const asked = model.requests.length;
    const task = sendTask('talk for a while');
    await waitFor(() => model.requests.length > asked, 20_000, 'the model asked');
    const exit = new Promise<number | null>((resolve) => cli.child.once('exit', (code) => resolve(code)));
    cli.child.kill('SIGTERM');
    const done = await task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(messageText(done.status?.message)).toBe(reply);
    expect(await exit).toBe(0);
  }, 60_000);
});
