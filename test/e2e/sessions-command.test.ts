import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initialize, startAcpCli } from '../helpers/acp-cli.js';
import { runCliOnce } from '../helpers/run-cli-once.js';
import { startPostgresCluster } from '../helpers/postgres-cluster.js';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';

// `plaited-agent sessions list|show|export|delete` through the built CLI, on sessions a real
// `-p` run stored in the project's SQLite state (issue 25, item 5).
let server: ScriptedOpenAIServer;
beforeEach(async () => {
  server = await startScriptedOpenAIServer();
});
afterEach(async () => {
  await server.close();
});

const project = () => mkdtempSync(join(tmpdir(), 'plaited-sessions-'));
const sessions = (cwd: string, args: string[]) => runCliOnce(['sessions', ...args], { cwd });

async function storedSession(cwd: string, prompt: string, answer: string): Promise<string> {
  server.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'missing.txt' } }] }, { text: answer });
  const run = await runCliOnce(['-p', prompt, '--output-format', 'json', '--model', 'openai-compatible:scripted', '--base-url', server.url], { cwd });
  expect(run.status, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { sessionId: string }).sessionId;
}

describe('plaited-agent sessions', () => {
  it('lists, shows, exports (Markdown and JSON) and deletes the project sessions', async () => {
    const cwd = project();
    const empty = await sessions(cwd, ['list']);
    expect(empty.status, empty.stderr).toBe(0);
    expect(empty.stdout).toContain('No sessions');
    // Asking leaves nothing behind: a folder without state gets none from a listing.
    expect(existsSync(join(cwd, '.plaited'))).toBe(false);

    const first = await storedSession(cwd, 'first question', 'First answer.');
    const second = await storedSession(cwd, 'second question', 'Second answer.');
    const list = await sessions(cwd, ['list']);
    expect(list.status, list.stderr).toBe(0);
    const ids = list.stdout.trim().split('\n').map((line) => line.split(/\s+/)[0]);
    expect(ids).toEqual([second, first]);
    const json = JSON.parse((await sessions(cwd, ['list', '--format', 'json'])).stdout) as Array<{ sessionId: string; cwd: string }>;
    expect(json.map((session) => session.sessionId)).toEqual([second, first]);

    const show = await sessions(cwd, ['show', first]);
    expect(show.status, show.stderr).toBe(0);
    expect(show.stdout).toContain(`id:       ${first}`);
    expect(show.stdout).toContain('prompts:  1');

    const markdown = await sessions(cwd, ['export', first]);
    expect(markdown.status, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/## User\n\nfirst question\n/);
    expect(markdown.stdout).toMatch(/## Agent\n/);
    expect(markdown.stdout).toContain('First answer.');
    expect(markdown.stdout).toContain('tool `read_file`');
    expect(markdown.stdout).not.toContain('second question');

    const toFile = await sessions(cwd, ['export', first.slice(0, 12), '--format', 'json', '--output', 'first.json']);
    expect(toFile.status, toFile.stderr).toBe(0);
    const exported = JSON.parse(readFileSync(join(cwd, 'first.json'), 'utf8')) as { session: { sessionId: string }; events: Array<{ type: string }> };
    expect(exported.session.sessionId).toBe(first);
    expect(exported.events.map((event) => event.type)).toEqual(expect.arrayContaining(['user-message', 'tool-call', 'text-delta', 'turn-end']));

    const deleted = await sessions(cwd, ['delete', first]);
    expect(deleted.status, deleted.stderr).toBe(0);
    const after = await sessions(cwd, ['list']);
    expect(after.stdout).not.toContain(first);
    expect(after.stdout).toContain(second);
  });

  it("delete takes the session's plan file with it", async () => {
    const cwd = project();
    server.push({ toolCalls: [{ name: 'plan', arguments: { items: [{ content: 'a private step' }] } }] }, { text: 'Planned.' });
    const run = await runCliOnce(['-p', 'plan it', '--output-format', 'json', '--model', 'openai-compatible:scripted', '--base-url', server.url], { cwd });
    expect(run.status, run.stderr).toBe(0);
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
    const planFile = join(cwd, '.plaited', 'plans', `${sessionId}.json`);
    expect(readFileSync(planFile, 'utf8')).toContain('a private step');
    const deleted = await sessions(cwd, ['delete', sessionId]);
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(existsSync(planFile)).toBe(false);
  });

  it('names what is wrong: an unknown session, a missing id, a wrong format', async () => {
    const cwd = project();
    const [unknown, noId, format] = await Promise.all([
      sessions(cwd, ['show', 'no-such-session']),
      sessions(cwd, ['export']),
      sessions(cwd, ['list', '--format', 'yaml']),
    ]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('no session no-such-session');
    expect(noId.status).toBe(2);
    expect(noId.stderr).toContain('export needs a session id');
    expect(format.status).toBe(2);
    expect(format.stderr).toContain('text, json');
    expect(existsSync(join(cwd, 'first.json'))).toBe(false);
    expect(existsSync(join(cwd, '.plaited'))).toBe(false);
  });

  it('reads the store the agent uses: PLAITED_STORE (or --store) names PostgreSQL, where a -p run saved its session', async () => {
    const cluster = await startPostgresCluster();
    try {
      const store = await cluster.createDatabase();
      const cwd = project();
      server.push({ text: 'Kept in PostgreSQL.' });
      const run = await runCliOnce(['-p', 'remember this', '--output-format', 'json', '--model', 'openai-compatible:scripted', '--base-url', server.url], { cwd, env: { PLAITED_STORE: store } });
      expect(run.status, run.stderr).toBe(0);
      const id = (JSON.parse(run.stdout) as { sessionId: string }).sessionId;

      const list = await runCliOnce(['sessions', 'list'], { cwd, env: { PLAITED_STORE: store } });
      expect(list.status, list.stderr).toBe(0);
      expect(list.stdout).toContain(id);
      const show = await runCliOnce(['sessions', 'show', id.slice(0, 8), '--store', store], { cwd });
      expect(show.status, show.stderr).toBe(0);
      expect(show.stdout).toContain(`id:       ${id}`);
      // The SQLite file of the folder is not what the agent used.
      expect((await sessions(cwd, ['list'])).stdout).toContain('No sessions');
    } finally {
      await cluster.stop();
    }
  });

  it('delete refuses a session another process has open (its turn would lose its transcript), and deletes it once that process is gone', async () => {
    const cwd = project();
    const holder = startAcpCli({ cwd, args: ['--model', 'openai-compatible:scripted', '--base-url', server.url] });
    let sessionId: string;
    try {
      await initialize(holder);
      ({ sessionId } = await holder.agent.request('session/new', { cwd, mcpServers: [] }));
      const refused = await sessions(cwd, ['delete', sessionId]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('is open in another plaited-agent process');
      expect((await sessions(cwd, ['list'])).stdout).toContain(sessionId);
    } finally {
      await holder.close();
    }
    const deleted = await sessions(cwd, ['delete', sessionId]);
    expect(deleted.status, deleted.stderr).toBe(0);
    expect((await sessions(cwd, ['list'])).stdout).toContain('No sessions');
  });
});
