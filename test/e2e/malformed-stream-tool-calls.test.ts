import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initialize, startAcpCli, type AcpCli } from '../helpers/acp-cli.js';
import { startScriptedOpenAIServer, type RecordedRequest, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { closeChecked } from '../helpers/close-checked.js';

/** Turns and restarts of the real CLI: generous for a loaded CI machine (a bound, not a measure). */
const RESTART_TIMEOUT_MS = 90_000;

/**
 * One model server for the file and one CLI at a time (a start is ~1 s of CPU): every test opens
 * its session in a project folder of its own (where that session is stored) on the running CLI,
 * then restarts it and goes on with the restarted one, which the next test uses. After each test
 * no scripted step may be left over and every CLI's traffic matches the schema.
 */
let server: ScriptedOpenAIServer;
let cli: AcpCli;
let home: string;
const project = (): string => mkdtempSync(join(tmpdir(), 'plaited-malformed-stream-'));

async function start(): Promise<AcpCli> {
  const started = startAcpCli({ cwd: home, args: ['--model', 'openai-compatible:scripted', '--base-url', server.url] });
  await initialize(started);
  return started;
}
/** Closes the running CLI, checks its traffic, and starts it again in the same folder. */
async function restart(): Promise<AcpCli> {
  await closeChecked(cli);
  cli = await start();
  return cli;
}

beforeAll(async () => {
  server = await startScriptedOpenAIServer();
  home = project();
  cli = await start();
});
afterAll(async () => {
  await cli?.close();
  await server?.close();
});
afterEach(() => {
  expect(cli.validator.errors, cli.validator.errors.join('\n')).toEqual([]);
  expect(server.pending(), 'scripted steps the test left unused').toBe(0);
});

async function newSession(on: AcpCli, cwd: string): Promise<string> {
  return (await on.agent.request('session/new', { cwd, mcpServers: [] })).sessionId;
}

/** Ids of the tool calls in a request's history that no tool message answers: what OpenAI refuses ("tool result is missing"). */
function danglingCalls(request: RecordedRequest): string[] {
  const answered = new Set(request.messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id));
  const calls = request.messages.flatMap((message) => (Array.isArray(message.tool_calls) ? (message.tool_calls as Array<{ id: string }>) : []));
  return calls.map((call) => call.id).filter((id) => !answered.has(id));
}

function toolResultText(request: RecordedRequest, toolCallId: string): string {
  return JSON.stringify(request.messages.find((message) => message.role === 'tool' && message.tool_call_id === toolCallId)?.content);
}

const MALFORMED = {
  'not JSON': '{not json}',
  'a __proto__ key': '{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"__proto__":{"polluted":true}}',
  'choices: null': '{"choices":null}',
};

describe('a malformed stream chunk next to a tool call', () => {
  for (const [name, chunk] of Object.entries(MALFORMED)) {
    it(`(${name}) fails the turn cleanly, stores no call without a result, and later turns work, also after a restart`, async () => {
      const cwd = project();
      const first = cli;
      const sessionId = await newSession(first, cwd);
      server.push({ toolCalls: [{ id: 'call_bad', name: 'read_file', arguments: { path: 'a.txt' } }], rawChunks: [chunk] });
      const failed = await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read it' }] }).then(
        () => undefined,
        (error: unknown) => error as { code: number; data?: { code?: string } },
      );
      expect(failed?.code).toBe(-32603);

      server.push({ text: 'fine now' });
      const second = await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
      expect(second.stopReason).toBe('end_turn');
      const sent = server.requests.at(-1)!;
      expect(danglingCalls(sent)).toEqual([]);
      expect(toolResultText(sent, 'call_bad')).toContain('Not run');

      const second2 = await restart();
      await second2.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
      server.push({ text: 'after restart' });
      const third = await second2.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
      expect(third.stopReason).toBe('end_turn');
      expect(danglingCalls(server.requests.at(-1)!)).toEqual([]);
    }, RESTART_TIMEOUT_MS);
  }

  it('a history an older release stored with a dangling call gets an error result on load, and the next turn is sendable', async () => {
    const cwd = project();
    const first = cli;
    const sessionId = await newSession(first, cwd);
    server.push({ text: 'hello' });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    await closeChecked(first);

    // What an older release left behind: the assistant's call stored, its result never.
    const db = new Database(join(cwd, '.plaited/state/state.db'));
    try {
      const next = (db.prepare('SELECT COALESCE(MAX(seq), -1) + 1 AS next FROM messages WHERE session_id = ?').get(sessionId) as { next: number }).next;
      const insert = db.prepare('INSERT INTO messages (session_id, seq, message) VALUES (?, ?, ?)');
      insert.run(sessionId, next, JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'read it' }] }));
      insert.run(
        sessionId,
        next + 1,
        JSON.stringify({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'old_call', toolName: 'read_file', input: { path: 'a.txt' } }] }),
      );
    } finally {
      db.close();
    }

    const second = await start();
    cli = second;
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    server.push({ text: 'repaired' });
    const answer = await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go on' }] });
    expect(answer.stopReason).toBe('end_turn');
    const sent = server.requests.at(-1)!;
    expect(danglingCalls(sent)).toEqual([]);
    expect(toolResultText(sent, 'old_call')).toContain('No result was recorded');
  }, RESTART_TIMEOUT_MS);
});
