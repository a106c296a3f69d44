import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pathWithoutBubblewrap } from '../helpers/path-without-bubblewrap.js';
import { runCliOnce } from '../helpers/run-cli-once.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';
import { requireTestModel } from '../model/test-models.js';

// `plaited-agent doctor` through the built CLI (issue 25, item 4): real programs on PATH, the
// scripted model's real endpoint, the test embedder, real MCP servers and the SQLite state file.
const fixtureServer = join(resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures'), 'mcp/fixture-server.mjs');
let model: ScriptedOpenAIServer;
beforeEach(async () => {
  model = await startScriptedOpenAIServer();
});
afterEach(async () => {
  await model.close();
});

function project(config: Record<string, unknown>): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-doctor-'));
  mkdirSync(join(cwd, '.plaited'));
  writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: requireTestModel('PLAITED_TEST_EMBED_MODEL'), threads: 1 }, ...config }));
  return cwd;
}
const line = (stdout: string, name: string) => stdout.split('\n').find((entry) => entry.slice(2).startsWith(`${name}:`));

describe('plaited-agent doctor', () => {
  it('passes every check on a working setup: one ✓ line each, exit 0', async () => {
    const cwd = project({
      agent: { model: 'openai-compatible:scripted', baseURL: model.url },
      mcp: { servers: [{ id: 'fixture', transport: 'stdio', command: process.execPath, args: [fixtureServer, '--name', 'fixture'] }] },
    });
    const run = await runCliOnce(['doctor'], { cwd });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    for (const name of ['node', 'rg', 'bwrap', 'socat', 'setpriv', 'config', 'model', 'embedder', 'mcp fixture', 'state store']) {
      expect(line(run.stdout, name), `${name} in\n${run.stdout}`).toMatch(/^✓ /);
    }
    // Each program is shown with its version (socat's first line is a credit, its second the version).
    for (const name of ['rg', 'bwrap', 'socat', 'setpriv']) expect(line(run.stdout, name)).toMatch(new RegExp(`^✓ ${name}: .*\\d+\\.\\d+`));
    expect(line(run.stdout, 'mcp fixture')).toMatch(/connected, [1-9]\d* tools/);
    expect(run.stdout).toContain('All checks passed.');
  });

  it('names each failure with its fix and exits 1: no bwrap, a model the server lacks, an MCP command that does not exist', async () => {
    const cwd = project({
      agent: { model: 'openai-compatible:no-such-model', baseURL: model.url },
      mcp: { servers: [{ id: 'ghost', transport: 'stdio', command: '/nonexistent/mcp-server' }] },
    });
    const run = await runCliOnce(['doctor'], { cwd, env: { PATH: pathWithoutBubblewrap(['rg', 'socat', 'setpriv']) } });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(line(run.stdout, 'bwrap')).toMatch(/^✗ bwrap: not found on PATH .* — fix: install bubblewrap/);
    expect(line(run.stdout, 'rg')).toMatch(/^✓ /);
    expect(line(run.stdout, 'model')).toMatch(/^✗ model: .*does not serve no-such-model \(it lists scripted\) — fix: /);
    expect(line(run.stdout, 'mcp ghost')).toMatch(/^✗ mcp ghost: (failed|reconnecting): .* — fix: check mcp.servers "ghost"/);
    expect(line(run.stdout, 'state store')).toMatch(/^✓ /);
    expect(run.stdout).toMatch(/\d+ checks? failed\./);
  });

  it('says when the endpoint refuses the key', async () => {
    const { createServer } = await import('node:http');
    const refusing = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'invalid api key' } }));
    });
    await new Promise<void>((done) => refusing.listen(0, '127.0.0.1', done));
    try {
      const port = (refusing.address() as { port: number }).port;
      const cwd = project({ agent: { model: 'openai-compatible:scripted', baseURL: `http://127.0.0.1:${port}/v1` } });
      const run = await runCliOnce(['doctor'], { cwd });
      expect(run.status).toBe(1);
      expect(line(run.stdout, 'model')).toMatch(/^✗ model: .*refused the key \(HTTP 401\) — fix: check PLAITED_API_KEY/);
    } finally {
      await new Promise((done) => refusing.close(done));
    }
  });

  it('reports a state file written by a newer plaited-agent', async () => {
    const cwd = project({ agent: { model: 'openai-compatible:scripted', baseURL: model.url } });
    mkdirSync(join(cwd, '.plaited/state'), { recursive: true });
    const { openSqliteDatabase } = await import('../../src/storage/sqlite/open-sqlite-database.js');
    const db = openSqliteDatabase(join(cwd, '.plaited/state/state.db'));
    db.pragma('user_version = 999');
    db.close();
    const run = await runCliOnce(['doctor'], { cwd });
    expect(run.status).toBe(1);
    expect(line(run.stdout, 'state store')).toMatch(/^✗ state store: .*schema 999, newer .* — fix: upgrade plaited-agent/);
  });

  it('checks the PostgreSQL store PLAITED_STORE names, not the SQLite file, without showing its password', async () => {
    const cwd = project({ agent: { model: 'openai-compatible:scripted', baseURL: model.url } });
    const run = await runCliOnce(['doctor'], { cwd, env: { PLAITED_STORE: 'postgres://agent:hunter2-secret@127.0.0.1:1/agent' } });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(line(run.stdout, 'state store')).toMatch(/^✗ state store: cannot open session store postgres:\/\/agent:\*\*\*@127\.0\.0\.1:1\/agent: connect ECONNREFUSED 127\.0\.0\.1:1; start PostgreSQL at 127\.0\.0\.1:1, or fix the host and port in the store URL/);
    expect(`${run.stdout}${run.stderr}`).not.toContain('hunter2-secret');
  });

  it('a state folder that cannot be created: the cause once, and a fix that works (agent.stateDb does not move the folder)', async () => {
    const cwd = project({ agent: { model: 'openai-compatible:scripted', baseURL: model.url } });
    writeFileSync(join(cwd, '.plaited/state'), '');
    const run = await runCliOnce(['doctor'], { cwd });
    expect(run.status).toBe(1);
    const state = line(run.stdout, 'state store') ?? '';
    expect(state).toMatch(/^✗ state store: .*\.plaited\/state is not writable/);
    expect(state.split('cannot create').length - 1).toBeLessThanOrEqual(1);
    expect(state).toContain('fix: make .plaited/state a folder this user can write');
    expect(state).not.toContain('agent.stateDb');
  });
});
