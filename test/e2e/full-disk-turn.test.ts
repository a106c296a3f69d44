import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acpTestBed } from '../helpers/acp-test-bed.js';
import { agentText, initialize } from '../helpers/acp-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { fillDisk, mountSmallTmpfs, unmountSmallTmpfs } from '../helpers/small-tmpfs.js';
import { INTERRUPTED_MARK } from '../../src/agent/recover-interrupted-reply.js';

/** Turns and restarts of the real CLI: generous for a loaded CI machine (a bound, not a measure). */
const RESTART_TIMEOUT_MS = 90_000;
const bed = acpTestBed({ prefix: 'plaited-full-disk-' });

/** A real 8 MiB tmpfs (the tests run as root), mounted for this file only. */
let mountPoint: string;
beforeAll(() => {
  mountPoint = mountSmallTmpfs('8m');
});
afterAll(() => unmountSmallTmpfs(mountPoint));

describe('a full disk during a turn', () => {
  it('ends the turn with storage_full, and the session answers the next prompt once space is back', async () => {
    const cwd = join(mountPoint, 'project');
    mkdirSync(cwd);
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    bed.server.push({ text: 'first answer' });
    expect((await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] })).stopReason).toBe('end_turn');

    const filler = fillDisk(mountPoint);
    // A prompt far larger than any page SQLite may still have free: storing it must grow the file.
    const failure = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x '.repeat(400_000) }] }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string; data?: { code?: string } },
    );
    expect(failure?.code).toBe(-32603);
    expect(failure?.data?.code).toBe('storage_full');
    expect(failure?.message).toContain('disk is full');

    rmSync(filler);
    const from = cli.updates.length;
    bed.server.push({ text: 'back again' });
    const next = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'there is room now' }] });
    expect(next.stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId, from)).toBe('back again');
  }, RESTART_TIMEOUT_MS);

  it('fills up while the model streams: the turn ends with storage_full, and the next prompt after freeing space is answered', async () => {
    const cwd = join(mountPoint, 'streaming');
    mkdirSync(cwd);
    const cli = bed.start(cwd);
    await initialize(cli);
    const { sessionId } = await cli.agent.request('session/new', { cwd, mcpServers: [] });
    // Slow enough that the disk is full before the reply ends; long enough that storing it must grow the file.
    bed.server.push({ text: Array.from({ length: 60 }, (_, i) => `${i}${'z'.repeat(4_000)}`).join(' '), chunkDelayMs: 40 });
    const turn = cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'stream' }] }).then(
      () => undefined,
      (error: unknown) => error as { code: number; message: string; data?: { code?: string } },
    );
    await waitFor(() => agentText(cli, sessionId).length > 0, 15_000, 'the reply to start');
    const filler = fillDisk(mountPoint);
    const failure = await turn;
    expect(failure?.data?.code).toBe('storage_full');

    rmSync(filler);
    const from = cli.updates.length;
    bed.server.push({ text: 'recovered' });
    const next = await cli.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    expect(next.stopReason).toBe('end_turn');
    expect(agentText(cli, sessionId, from)).toBe('recovered');
    // What streamed before the disk filled reaches the model once, marked as cut short, before the new prompt.
    const history = bed.server.requests.at(-1)!.messages;
    const cut = history.filter((message) => message.role === 'assistant' && JSON.stringify(message.content).includes(INTERRUPTED_MARK));
    expect(cut).toHaveLength(1);
    expect(JSON.stringify(cut[0]!.content)).toContain(`0${'z'.repeat(4_000)}`);
    expect(history.at(-1)).toMatchObject({ role: 'user', content: 'again' });
  }, RESTART_TIMEOUT_MS);
});
