import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { initialize, type AcpCli } from '../helpers/acp-cli.js';
import type { RecordedRequest } from '../helpers/scripted-openai-server.js';

/** Turns and restarts of the real CLI: generous for a loaded CI machine (a bound, not a measure). */
const RESTART_TIMEOUT_MS = 90_000;
const bed = acpTestBed({ prefix: 'plaited-malformed-stream-' });

async function newSession(cli: AcpCli, cwd: string): Promise<string> {
  await initialize(cli);
  return (await cli.agent.request('session/new', { cwd, mcpServers: [] })).sessionId;
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
      const cwd = bed.project();
      const first = bed.start(cwd);
      const sessionId = await newSession(first, cwd);
      bed.server.push({ toolCalls: [{ id: 'call_bad', name: 'read_file', arguments: { path: 'a.txt' } }], rawChunks: [chunk] });
      const failed = await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read it' }] }).then(
        () => undefined,
        (error: unknown) => error as { code: number; data?: { code?: string } },
      );
      expect(failed?.code).toBe(-32603);

      bed.server.push({ text: 'fine now' });
      const second = await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
      expect(second.stopReason).toBe('end_turn');
      const sent = bed.server.requests.at(-1)!;
      expect(danglingCalls(sent)).toEqual([]);
      expect(toolResultText(sent, 'call_bad')).toContain('Not run');

      await bed.closeNow(first);
      const second2 = bed.start(cwd);
      await initialize(second2);
      await second2.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
      bed.server.push({ text: 'after restart' });
      const third = await second2.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
      expect(third.stopReason).toBe('end_turn');
      expect(danglingCalls(bed.server.requests.at(-1)!)).toEqual([]);
    }, RESTART_TIMEOUT_MS);
  }

  it('a history an older release stored with a dangling call gets an error result on load, and the next turn is sendable', async () => {
    const cwd = bed.project();
    const first = bed.start(cwd);
    const sessionId = await newSession(first, cwd);
    bed.server.push({ text: 'hello' });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    await bed.closeNow(first);

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

    const second = bed.start(cwd);
    await initialize(second);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    bed.server.push({ text: 'repaired' });
    const answer = await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go on' }] });
    expect(answer.stopReason).toBe('end_turn');
    const sent = bed.server.requests.at(-1)!;
    expect(danglingCalls(sent)).toEqual([]);
    expect(toolResultText(sent, 'old_call')).toContain('No result was recorded');
  }, RESTART_TIMEOUT_MS);
});
