import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.js';
import { LOCAL_PRINCIPAL, ownedSessions } from '../../src/agent/owned-sessions.js';
import { configSchema } from '../../src/config/schema.js';
import { SessionStore } from '../../src/storage/session-store.js';
import { scriptedModel } from '../helpers/scripted-mock-model.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function agentOn(stateDb: string) {
  const agent = createAgent({ config: configSchema.parse({ agent: { stateDb } }), model: scriptedModel([]), tools: [] });
  stops.push(() => agent.stop());
  return agent;
}

describe('ownedSessions', () => {
  it("gives each principal its own sessions, and answers another's as not found", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'plaited-owned-'));
    const agent = agentOn(join(cwd, 'state.db'));
    const local = ownedSessions(agent.sessions, LOCAL_PRINCIPAL);
    const alice = ownedSessions(agent.sessions, 'alice');
    const mine = await local.create({ cwd });
    const hers = await alice.create({ cwd });
    expect(hers.owner).toBe('alice');

    expect((await local.list({ cwd })).map((info) => info.sessionId)).toEqual([mine.sessionId]);
    expect((await alice.list({ cwd })).map((info) => info.sessionId)).toEqual([hers.sessionId]);
    expect(await alice.get(mine.sessionId)).toBeUndefined();
    await expect(alice.history(mine.sessionId)).rejects.toMatchObject({ code: 'session_not_found' });
    await expect(alice.setMode(mine.sessionId, 'plan')).rejects.toMatchObject({ code: 'session_not_found' });
    await alice.delete(mine.sessionId);
    expect(await local.get(mine.sessionId)).toBeDefined();
    expect((await agent.sessions.get(mine.sessionId))?.mode).toBe('default');
  });

  it('upgrades a state file written before owners were recorded: its sessions are the local user\'s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plaited-owned-migrate-'));
    const path = join(dir, 'state.db');
    // A schema-1 file, as the previous release wrote it.
    const old = new Database(path);
    old.exec(`CREATE TABLE sessions (id TEXT PRIMARY KEY, cwd TEXT NOT NULL, title TEXT, mode TEXT NOT NULL DEFAULT 'default',
      parent_id TEXT, mcp_servers TEXT NOT NULL DEFAULT '[]', created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE TABLE messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, message TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
      CREATE TABLE tool_calls (session_id TEXT NOT NULL, tool_call_id TEXT NOT NULL, tool_name TEXT NOT NULL, args TEXT NOT NULL, status TEXT NOT NULL,
        result TEXT, started_at TEXT NOT NULL, finished_at TEXT, PRIMARY KEY (session_id, tool_call_id));
      CREATE TABLE events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
      INSERT INTO sessions VALUES ('old-one', '${dir}', 'before', 'default', NULL, '[]', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
      PRAGMA user_version = 1;`);
    old.close();

    const store = new SessionStore(path);
    expect(store.getSession('old-one')?.owner).toBeUndefined();
    store.close();
    const agent = agentOn(path);
    expect((await ownedSessions(agent.sessions, LOCAL_PRINCIPAL).list({ cwd: dir })).map((info) => info.sessionId)).toEqual(['old-one']);
    expect(await ownedSessions(agent.sessions, 'alice').list({ cwd: dir })).toEqual([]);
  });
});
