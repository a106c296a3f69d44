import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { waitFor } from '../helpers/wait-for.js';
import { agentText, initialize, type AcpCli } from '../helpers/acp-cli.js';
import { INTERRUPTED_MARK } from '../../src/agent/recover-interrupted-reply.js';

const bed = acpTestBed({ prefix: 'plaited-durability-' });

async function newSession(cli: AcpCli, cwd: string): Promise<string> {
  await initialize(cli);
  return (await cli.agent.request('session/new', { cwd, mcpServers: [] })).sessionId;
}

/** The reply text stored for the session so far (what `session/load` would replay), read as another process would. */
function storedText(cwd: string, sessionId: string): string {
  const db = new Database(join(cwd, '.plaited/state/state.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT data FROM events WHERE session_id = ? AND type = 'text-delta' ORDER BY seq").all(sessionId) as Array<{ data: string }>;
    return rows.map((row) => (JSON.parse(row.data) as { text: string }).text).join('');
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

describe('streamed text survives a crash', () => {
  it('after kill -9 mid-stream, session/load shows the text streamed before the kill and the model sees it next turn', async () => {
    const cwd = bed.project();
    const first = bed.start(cwd);
    const sessionId = await newSession(first, cwd);
    // 400 words, one every 50 ms: 20 s of streaming, far longer than the test needs.
    const words = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
    bed.server.push({ text: words, chunkDelayMs: 50 });
    void first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'talk slowly' }] }).catch(() => undefined);

    await waitFor(() => agentText(first, sessionId).includes('w20 '), 15_000, 'twenty words on screen');
    const shown = agentText(first, sessionId);
    // Still streaming, so only the periodic flush can have written it.
    await waitFor(() => storedText(cwd, sessionId).startsWith(shown), 10_000, 'the shown text in the state file');
    expect(agentText(first, sessionId)).not.toContain('w399');
    first.child.kill('SIGKILL');
    await first.exited;
    bed.track(first);

    const second = bed.start(cwd);
    await initialize(second);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    const replayed = agentText(second, sessionId);
    expect(replayed.startsWith(shown)).toBe(true);
    expect(replayed.endsWith(`\n\n${INTERRUPTED_MARK}`)).toBe(true);
    expect(words.startsWith(replayed.slice(0, -INTERRUPTED_MARK.length).trimEnd())).toBe(true);

    const before = bed.server.requests.length;
    bed.server.push({ text: 'Where was I?' });
    const answer = await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go on' }] });
    expect(answer.stopReason).toBe('end_turn');
    const history = bed.server.requests[before]!.messages;
    const assistant = history.filter((message) => message.role === 'assistant').map((message) => JSON.stringify(message.content));
    expect(assistant.some((content) => content.includes(shown.trim()) && content.includes(INTERRUPTED_MARK))).toBe(true);
    // Exactly one copy: the draft was folded once.
    expect(assistant.filter((content) => content.includes('w10 ')).length).toBe(1);
    expect(history.at(-1)).toMatchObject({ role: 'user' });
  });

  it('a turn that ends normally leaves no draft behind: a restart adds nothing to the history', async () => {
    const cwd = bed.project();
    const first = bed.start(cwd);
    const sessionId = await newSession(first, cwd);
    bed.server.push({ text: 'complete answer', chunkDelayMs: 5 });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    await bed.closeNow(first);

    const second = bed.start(cwd);
    await initialize(second);
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(agentText(second, sessionId)).toBe('complete answer');
    const before = bed.server.requests.length;
    bed.server.push({ text: 'ok' });
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    expect(JSON.stringify(bed.server.requests[before]!.messages)).not.toContain('interrupted');
  });
});

describe('a damaged index', () => {
  it('is moved aside and built afresh: the extensions it backs keep working, and the old file is kept', async () => {
    const cwd = bed.project();
    const file = join(cwd, '.plaited/state/index.db');
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const damaged = Buffer.from('not a database, though it may hold the only copy of some episodes '.repeat(40));
    writeFileSync(file, damaged);
    const cli = bed.start(cwd);
    const sessionId = await newSession(cli, cwd);
    const before = bed.server.requests.length;
    bed.server.push({ text: 'ok' });
    await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    // The plan tool comes with the extensions the index backs: without the index they were all off.
    expect(bed.server.requests[before]!.tools?.map((tool) => tool.function.name)).toContain('plan');
    expect(readFileSync(`${file}.damaged`).equals(damaged)).toBe(true);
    expect(cli.stderr()).toContain(`the index ${file} was damaged (file is not a database): moved to ${file}.damaged`);
  });
});

describe('one session, two processes', () => {
  it('refuses the session to a second process while the first has it open, names the holder, and hands it over once the first is gone', async () => {
    const cwd = bed.project();
    const first = bed.start(cwd);
    const sessionId = await newSession(first, cwd);
    bed.server.push({ text: 'first answer' });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] });

    const second = bed.start(cwd);
    await initialize(second);
    // Listing is reading: allowed.
    expect((await second.agent.request('session/list', { cwd })).sessions.map((s) => s.sessionId)).toContain(sessionId);
    for (const request of [
      () => second.agent.request('session/load', { sessionId, cwd, mcpServers: [] }),
      () => second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] }),
    ]) {
      const error = await failure(request());
      expect(error.code).toBe(-32603);
      expect(error.data).toMatchObject({ code: 'session_in_use' });
      expect(error.message).toContain(`pid ${first.child.pid}`);
      expect(error.message).toMatch(/open in another plaited-agent process/);
    }
    // The first process is unaffected and goes on.
    bed.server.push({ text: 'still mine' });
    expect((await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'three' }] })).stopReason).toBe('end_turn');

    // Killed without a chance to release: its pid is gone, so the lease is taken over.
    first.child.kill('SIGKILL');
    await first.exited;
    await second.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
    expect(agentText(second, sessionId)).toContain('still mine');
    const before = bed.server.requests.length;
    bed.server.push({ text: 'now mine' });
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'four' }] });
    const seen = JSON.stringify(bed.server.requests[before]!.messages);
    for (const turn of ['one', 'three', 'first answer', 'still mine']) expect(seen).toContain(turn);

    // And a third process is refused while the second holds it.
    const third = bed.start(cwd);
    await initialize(third);
    expect((await failure(third.agent.request('session/load', { sessionId, cwd, mcpServers: [] }))).code).toBe(-32603);
  });
});
