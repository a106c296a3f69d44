import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.js';
import { openSessionStores } from '../../src/storage/open-session-stores.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe('a session whose working folder is missing (a replica without the shared volume)', () => {
  it('is refused with workspace_missing naming the folder, the folder is not made, and it opens once the folder is back', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'plaited-ws-state-')), 'state.db');
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-ws-'));
    const stores = await openSessionStores({ path: state });
    const agent = createAgent({ model: scriptedModel([]), tools: [], stores });
    stops.push(async () => {
      await agent.stop();
      await stores.closeAll();
    });
    const { sessionId } = await agent.sessions.create({ cwd });
    await agent.sessions.close(sessionId);
    rmSync(cwd, { recursive: true, force: true });

    await expect(agent.sessions.activate(sessionId)).rejects.toMatchObject({
      code: 'workspace_missing',
      message: expect.stringContaining(`works in ${cwd}, which is not a folder on this machine`),
    });
    expect(existsSync(cwd)).toBe(false);
    expect((await agent.sessions.list()).map((session) => session.sessionId)).toContain(sessionId);
    mkdirSync(cwd);
    expect((await agent.sessions.activate(sessionId)).sessionId).toBe(sessionId);
  });
});
