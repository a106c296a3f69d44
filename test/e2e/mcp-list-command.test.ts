import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliOnce } from '../helpers/run-cli-once.js';

// `plaited-agent mcp list` through the built CLI, with real MCP servers (issue 25, item 5).
const fixtureServer = join(resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures'), 'mcp/fixture-server.mjs');

function project(config: Record<string, unknown>): string {
  const cwd = mkdtempSync(join(tmpdir(), 'plaited-mcp-list-'));
  mkdirSync(join(cwd, '.plaited'));
  writeFileSync(join(cwd, '.plaited/config.json'), JSON.stringify({ embedder: { model: join(cwd, 'no-such-embedder.gguf') }, ...config }));
  return cwd;
}

describe('plaited-agent mcp list', () => {
  it('lists each configured server with its state, tool count and last error; exits 1 when one did not connect', async () => {
    const cwd = project({
      mcp: {
        servers: [
          { id: 'fixture', transport: 'stdio', command: process.execPath, args: [fixtureServer, '--name', 'fixture'] },
          { id: 'ghost', transport: 'stdio', command: '/nonexistent/mcp-server' },
          { id: 'off', transport: 'stdio', command: process.execPath, enabled: false },
        ],
      },
    });
    // A server that did not connect fails the command, as it fails doctor: exit 1, named on stderr.
    const run = await runCliOnce(['mcp', 'list', '--format', 'json'], { cwd });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/plaited-agent mcp: server ghost is (failed|reconnecting): .*ghost.*; check mcp.servers "ghost"/);
    expect(run.stderr).not.toContain('server fixture');
    expect(run.stderr).not.toContain('server off');
    const servers = JSON.parse(run.stdout) as Array<{ id: string; state: string; tools: number; lastError?: string }>;
    expect(servers.map((server) => server.id)).toEqual(['fixture', 'ghost', 'off']);
    expect(servers[0]).toMatchObject({ state: 'connected' });
    expect(servers[0]!.tools).toBeGreaterThan(0);
    expect(servers[0]!.lastError).toBeUndefined();
    expect(['failed', 'reconnecting']).toContain(servers[1]!.state);
    expect(servers[1]!.lastError).toMatch(/ghost/);
    expect(servers[2]).toMatchObject({ state: 'disabled', tools: 0 });

    const text = await runCliOnce(['mcp', 'list'], { cwd });
    expect(text.status, text.stderr).toBe(1);
    expect(text.stdout).toMatch(/^fixture\s+connected\s+\d+ tools\s*$/m);
    expect(text.stdout).toMatch(/^ghost\s+(failed|reconnecting)\s+0 tools\s+\S/m);
  });

  it('says when no server is configured, and names a wrong subcommand', async () => {
    const cwd = project({});
    const none = await runCliOnce(['mcp', 'list'], { cwd });
    expect(none.status, none.stderr).toBe(0);
    expect(none.stdout).toContain('No MCP servers configured');
    const wrong = await runCliOnce(['mcp', 'start'], { cwd });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('the command is mcp list');
  });
});
