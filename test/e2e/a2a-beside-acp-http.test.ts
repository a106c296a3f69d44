import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { connectAcpHttp, initializeHttp, textOf } from '../adapters/acp/acp-http-client.js';
import { a2aProject, isTask, startA2aCli, userMessage, type A2aCli } from '../adapters/a2a/a2a-cli.js';
import { runCliOnce } from '../helpers/run-cli-once.js';

/** One process, two faces: ACP over HTTP for an editor, A2A for other agents, one set of sessions. */
let model: ScriptedOpenAIServer;
let cli: A2aCli;
let cwd: string;

beforeAll(async () => {
  model = await startScriptedOpenAIServer();
  cwd = a2aProject({ adapters: { a2a: { port: 0 } } });
  // `--port 0` (added by the harness) belongs to ACP here; A2A takes its port from the config.
  cli = await startA2aCli({ cwd, args: ['--adapter', 'acp', '--transport', 'http', '--adapter', 'a2a', '--model', 'openai-compatible:scripted', '--base-url', model.url] });
});
afterAll(async () => {
  await cli?.close();
  await model?.close();
});

describe('ACP over HTTP and A2A in one process', () => {
  it('a conversation started by an A2A peer is loaded by an ACP client of the same process', async () => {
    const acpUrl = /ACP over HTTP at (\S+)/.exec(cli.stderr())?.[1];
    expect(acpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/acp$/);
    model.push({ text: 'Answered over A2A.' });
    const peer = await cli.client();
    const task = await peer.sendMessage(userMessage('hello from a peer agent'));
    if (!isTask(task)) throw new Error('expected a task');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const sessionId = task.metadata?.sessionId as string;
    expect(typeof sessionId).toBe('string');

    const editor = connectAcpHttp(acpUrl!);
    try {
      await initializeHttp(editor);
      await editor.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
      expect(textOf(editor, sessionId)).toBe('Answered over A2A.');
      expect(editor.validator.errors).toEqual([]);
    } finally {
      editor.close();
    }
  });

  it("a taken A2A port names the config key, not --port (that is the ACP face's in this run)", async () => {
    const taken = Number(new URL(cli.origin).port);
    const other = a2aProject({ adapters: { a2a: { port: taken } } });
    const run = await runCliOnce(['--adapter', 'acp', '--transport', 'http', '--port', '0', '--adapter', 'a2a', '--model', 'openai-compatible:scripted', '--base-url', model.url], { cwd: other });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`adapter a2a: 127.0.0.1:${taken} is already in use (another plaited-agent, or another server, listens there): stop it, or pick another port with adapters.a2a.port in the config (--port is the other face's here)`);
  });
});
