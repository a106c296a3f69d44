import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';
import { agentText, initialize, type AcpCli } from '../helpers/acp-cli.js';

const bed = acpTestBed({ prefix: 'plaited-lease-fence-' });

/** A project whose leases go stale after 1 s unrenewed, so a frozen holder is taken over quickly. */
function project(): string {
  const cwd = bed.project();
  mkdirSync(join(cwd, '.plaited'), { recursive: true });
  writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ agent: { sessionLease: { heartbeatMs: 100, staleMs: 1_000 } } }));
  return cwd;
}

/** The stored model-facing history, as `role: text` lines, read as a third process would. */
function storedTurns(cwd: string, sessionId: string): string[] {
  const db = new Database(join(cwd, '.plaited/state/state.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT message FROM messages WHERE session_id = ? ORDER BY seq').all(sessionId) as Array<{ message: string }>;
    return rows.map((row) => {
      const message = JSON.parse(row.message) as { role: string; content: string | Array<{ type: string; text?: string }> };
      const text = typeof message.content === 'string' ? message.content : message.content.map((part) => part.text ?? '').join('');
      return `${message.role}: ${text}`;
    });
  } finally {
    db.close();
  }
}

/** The stored replayable text (every text chunk, in order). */
function storedText(cwd: string, sessionId: string): string {
  const db = new Database(join(cwd, '.plaited/state/state.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT data FROM events WHERE session_id = ? AND type IN ('text-delta', 'user-message') ORDER BY seq").all(sessionId) as Array<{ data: string }>;
    return rows
      .map((row) => JSON.parse(row.data) as { type: string; text?: string; content?: Array<{ text?: string }> })
      .map((event) => (event.type === 'user-message' ? `[user: ${event.content?.map((part) => part.text).join('')}]` : event.text))
      .join('');
  } finally {
    db.close();
  }
}

async function failure(request: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await request;
  } catch (error) {
    return error as { code: number; message: string; data?: unknown };
  }
  throw new Error('the request succeeded');
}

/** B loads the session as soon as A's lease is stale (polling the store through B): refused with `session_in_use` until then. */
async function takeOver(b: AcpCli, sessionId: string, cwd: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const outcome = await b.agent.request('session/load', { sessionId, cwd, mcpServers: [] }).then(
      () => undefined,
      (error: { data?: unknown }) => error,
    );
    if (!outcome) return;
    expect(outcome.data).toMatchObject({ code: 'session_in_use' });
    if (Date.now() > deadline) throw new Error('the frozen holder’s lease never went stale');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('one writer per session, fenced by a lease epoch', () => {
  it('a holder frozen past its lease answers session_in_use after B took over, and reloads once B lets go', async () => {
    const cwd = project();
    const a = bed.start(cwd);
    await initialize(a);
    const sessionId = (await a.agent.request('session/new', { cwd, mcpServers: [] })).sessionId as string;
    bed.server.push({ text: 'answer from A' });
    await a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] });

    a.child.kill('SIGSTOP');
    const b = bed.start(cwd);
    await initialize(b);
    await takeOver(b, sessionId, cwd);
    bed.server.push({ text: 'answer from B' });
    await b.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] });

    a.child.kill('SIGCONT');
    const requestsBefore = bed.server.requests.length;
    const refused = await failure(a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'three' }] }));
    expect(refused.code).toBe(-32603);
    expect(refused.data).toMatchObject({ code: 'session_in_use' });
    expect(bed.server.requests.length).toBe(requestsBefore); // A never called the model on its stale history
    expect(storedTurns(cwd, sessionId)).toEqual(['user: one', 'assistant: answer from A', 'user: two', 'assistant: answer from B']);

    // B lets go: A loads the session again and its next turn sees B's.
    await bed.closeNow(b);
    bed.server.push({ text: 'A again' });
    await a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'four' }] });
    const seen = JSON.stringify(bed.server.requests.at(-1)!.messages);
    for (const turn of ['one', 'answer from A', 'two', 'answer from B', 'four']) expect(seen).toContain(turn);
    expect(seen).not.toContain('three');
    expect(storedTurns(cwd, sessionId)).toEqual([
      'user: one',
      'assistant: answer from A',
      'user: two',
      'assistant: answer from B',
      'user: four',
      'assistant: A again',
    ]);
  }, 60_000);

  it('a holder frozen mid-reply stops its turn with session_in_use and stores nothing after B took over', async () => {
    const cwd = project();
    const a = bed.start(cwd);
    await initialize(a);
    const sessionId = (await a.agent.request('session/new', { cwd, mcpServers: [] })).sessionId as string;
    // 400 words, one every 50 ms: A is still streaming when it is frozen and when it wakes.
    const words = Array.from({ length: 400 }, (_, i) => `a${i}`).join(' ');
    bed.server.push({ text: words, chunkDelayMs: 50 });
    const aTurn = failure(a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'talk slowly' }] }));
    await waitFor(() => agentText(a, sessionId).includes('a10 '), 15_000, 'A streaming');
    a.child.kill('SIGSTOP');

    const b = bed.start(cwd);
    await initialize(b);
    await takeOver(b, sessionId, cwd);
    bed.server.push({ text: 'answer from B' });
    await b.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] });
    const afterB = storedText(cwd, sessionId);
    expect(afterB.endsWith('[user: two]answer from B')).toBe(true);

    a.child.kill('SIGCONT');
    const refused = await aTurn;
    expect(refused.data).toMatchObject({ code: 'session_in_use' });
    // Nothing A streamed after waking reached the store: B's turn is still the last thing in it.
    expect(storedText(cwd, sessionId)).toBe(afterB);
    expect(storedTurns(cwd, sessionId).slice(-2)).toEqual(['user: two', 'assistant: answer from B']);
    expect(storedTurns(cwd, sessionId).join('\n')).not.toContain('a399');
  }, 60_000);
});
